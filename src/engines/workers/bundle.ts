/**
 * Freshness of a one-file build made after tsc (the CLI's, scripts/bundle-cli.mjs; the annotate worker's,
 * scripts/bundle-worker.mjs). Beside each bundle, <bundle without extension>.json lists the modules it holds
 * (paths relative to the bundle's folder); the bundle is used only while none of them is newer than it, so that an
 * incremental or watch tsc run since the last `npm run build` never leaves old code running.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** True when `bundle` and its module list exist and no module listed is newer than it (or gone). */
export function bundleIsCurrent(bundle: string): boolean {
  try {
    const built = statSync(bundle).mtimeMs;
    const { modules } = JSON.parse(readFileSync(bundle.replace(/\.c?js$/, '.json'), 'utf8')) as { modules: string[] };
    const dir = path.dirname(bundle);
    return modules.length > 0 && modules.every((m) => statSync(path.resolve(dir, m)).mtimeMs <= built);
  } catch {
    return false; // no bundle, no module list, or a bundled module gone
  }
}
