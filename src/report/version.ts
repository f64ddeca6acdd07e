/** The tracewatt version from package.json (two levels above this module in both src/ and dist/). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function tracewattVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: unknown;
      };
      cached = typeof pkg.version === 'string' ? pkg.version : 'unknown';
    } catch {
      cached = 'unknown';
    }
  }
  return cached;
}
