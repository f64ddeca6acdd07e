#!/usr/bin/env node
// Writes the held-out skew cases of scripts/skew-cases.mjs for ASTRA-sim: <dir>/<case>/t.<rank>.et, system.json,
// network.yml, mem.json (no remote memory), groups.json (comm groups), and <dir>/manifest.json.
// Run after `npm run build`: node scripts/write-skew-cases.mjs <dir>
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as chakra from '../dist/formats/chakra/index.js';
import { generateLlmTraces } from '../dist/engines/generate/index.js';
import { skewCases } from './skew-cases.mjs';

const root = path.resolve(process.argv[2] ?? 'skew-cases');
const manifest = [];
for (const c of skewCases(chakra, generateLlmTraces)) {
  const dir = path.join(root, c.name);
  mkdirSync(dir, { recursive: true });
  // ASTRA-sim's feeder needs the global-metadata frame first.
  for (let r = 0; r < c.ranks; r++)
    await chakra.writeTraceFile(path.join(dir, `t.${r}.et`), { version: '0.0.4', attrs: [] }, c.nodesOf(r));
  writeFileSync(path.join(dir, 'system.json'), JSON.stringify(c.system, null, 1));
  writeFileSync(path.join(dir, 'network.yml'), c.network);
  writeFileSync(path.join(dir, 'mem.json'), JSON.stringify({ 'memory-type': 'NO_MEMORY_EXPANSION' }));
  const entry = {
    name: c.name,
    ranks: c.ranks,
    workload: path.join(dir, 't'),
    system: path.join(dir, 'system.json'),
    network: path.join(dir, 'network.yml'),
    memory: path.join(dir, 'mem.json'),
  };
  if (c.commGroups) {
    writeFileSync(path.join(dir, 'groups.json'), JSON.stringify(c.commGroups));
    entry.commGroup = path.join(dir, 'groups.json');
  }
  manifest.push(entry);
}
writeFileSync(path.join(root, 'manifest.json'), JSON.stringify(manifest, null, 1));
console.log(`wrote ${manifest.length} cases to ${root}`);
