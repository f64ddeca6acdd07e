/**
 * Locates ../shared (real traces, profiles, ASTRA-sim results) beside the repository.
 * Tests that need it use describeShared(): when the folder is absent they are skipped with a message
 * saying so, instead of failing or silently passing. Files whose licence allows it are vendored under
 * test/fixtures/shared/ (vendored()), and the tests on them run everywhere.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sharedDir = process.env.TRACEWATT_SHARED ?? path.resolve(repoRoot, '..', 'shared');
export const hasShared = existsSync(path.join(sharedDir, 'README.md'));

/** Path inside ../shared. */
export function shared(...parts: string[]): string {
  return path.join(sharedDir, ...parts);
}

/** Path inside test/fixtures (sources and licences in test/fixtures/NOTICE.md). */
export function fixturePath(...parts: string[]): string {
  return path.join(repoRoot, 'test', 'fixtures', ...parts);
}

/**
 * A ../shared file vendored under test/fixtures/shared/ at the same path, so a clone without ../shared runs the test.
 */
export function vendored(...parts: string[]): string {
  return fixturePath('shared', ...parts);
}

/**
 * Chakra's own conversion of the real PyTorch runs (../shared/traces/pytorch-real/et), vendored: `dlrm` (the rank
 * files are `dlrm.<rank>.et.gz`, gzipped, the originals inside) and `simple_add.et`.
 */
export function chakraConversion(name: string): string {
  return vendored('traces', 'pytorch-real', 'et', name);
}

/**
 * Perseus' A40 stage profile of a model as shipped in calibration/profiles (../shared/profiles/perseus-sosp24's file).
 */
export function perseusStages(model: 'gpt3-175b' | 'bloom'): string {
  return path.join(repoRoot, 'calibration', 'profiles', 'perseus-sosp24', `${model}+a40_bf16.csv`);
}

let warned = false;
/** describe() that runs only when ../shared is present, and says why when it is skipped. */
export function describeShared(name: string, fn: () => void): void {
  if (!hasShared && !warned) {
    warned = true;
    console.warn(`[tracewatt tests] ../shared not found at ${sharedDir}: tests on real shared data are skipped`);
  }
  (hasShared ? describe : describe.skip)(name, fn);
}
