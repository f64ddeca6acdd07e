import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Temporary files of a run go under one folder removed at its end; each test file has a folder of its own.
    globalSetup: ['test/helpers/temp-root.ts'],
    setupFiles: ['test/helpers/temp-per-file.ts'],
  },
});
