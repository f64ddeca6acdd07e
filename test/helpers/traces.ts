/** Real trace files: those shipped in traces/ and, when present, every .et under ../shared. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { hasShared, repoRoot, sharedDir } from './shared.js';

function etFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.et'))
    .map((f) => path.join(dir, f))
    .sort();
}

export const shippedTraceFiles = etFiles(path.join(repoRoot, 'traces'));
export const sharedTraceFiles = hasShared ? etFiles(sharedDir) : [];
export const shipped = (...p: string[]) => path.join(repoRoot, 'traces', ...p);
