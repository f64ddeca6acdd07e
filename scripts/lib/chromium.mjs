/**
 * Headless Chromium for checks that need a browser (the report test, the timeline viewer): where it is and the
 * flags that keep it offline and quiet. Debian's `chromium`, or $TRACEWATT_CHROMIUM.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** No sandbox (containers), no GPU, no network traffic of its own; add --user-data-dir=<fresh folder>. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** $TRACEWATT_CHROMIUM, else chromium or chromium-browser on the PATH; undefined when none is executable. */
export function findChromium() {
  const candidates = process.env.TRACEWATT_CHROMIUM
    ? [process.env.TRACEWATT_CHROMIUM]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .flatMap((dir) => ['chromium', 'chromium-browser'].map((n) => path.join(dir, n)));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}
