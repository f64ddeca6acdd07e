#!/usr/bin/env node
/**
 * Prints every line of src/**\/*.ts (as git tracks them) longer than the limit, as `file:line: N columns`, and exits 1
 * if there is any. Columns are characters (Unicode code points), as Biome's lineWidth counts them; `awk 'length > 120'`
 * in a C or byte locale counts bytes and so also lists lines with "—", "µ" or "×" that fit.
 * With --bytes it counts UTF-8 bytes instead.
 * Usage: node scripts/check-line-width.mjs [--width 120] [--bytes] [files…]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
let limit = 120;
let bytes = false;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--width') limit = Number(args[++i]);
  else if (args[i] === '--bytes') bytes = true;
  else files.push(args[i]);
}
if (!Number.isInteger(limit) || limit < 1) {
  console.error('check-line-width: --width: expected a whole number of columns');
  process.exit(2);
}
if (files.length === 0)
  files.push(...execFileSync('git', ['ls-files', 'src/*.ts'], { encoding: 'utf8' }).split('\n').filter(Boolean));

let over = 0;
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const text = line.replace(/\r$/, '');
      const columns = bytes ? Buffer.byteLength(text) : [...text].length;
      if (columns > limit) {
        over++;
        console.log(`${file}:${i + 1}: ${columns} ${bytes ? 'bytes' : 'columns'}`);
      }
    });
}
if (over) console.error(`${over} line(s) over ${limit} ${bytes ? 'bytes' : 'columns'}`);
process.exit(over ? 1 : 0);
