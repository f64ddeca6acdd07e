import { toJson } from '../../core/json.js';
import { inspectTrace, type Inspection } from '../../engines/trace/inspect.js';
import type { CommandSpec } from '../command.js';
import { table, thousands } from '../io.js';

function render(r: Inspection): string {
  const types = [...new Set(r.ranks.flatMap((x) => Object.keys(x.nodesByType)))].sort();
  const rows = [...r.ranks, { ...r.total, rank: 'total' }].map((x) => [
    String(x.rank), thousands(x.nodeCount), ...types.map((t) => thousands(x.nodesByType[t] ?? 0)),
    thousands(x.numOps), thousands(x.durationMicros), thousands(x.edges.data), thousands(x.edges.ctrl),
    thousands(x.dangling.data + x.dangling.ctrl), thousands(x.nodesInCycles),
  ]);
  let out = table(['rank', 'nodes', ...types, 'COMP num_ops', 'COMP duration (µs)', 'data deps', 'ctrl deps', 'dangling deps', 'in cycles'], rows);
  const colls = Object.entries(r.total.collectives);
  if (colls.length) {
    out += '\n' + table(['collective (all ranks)', 'count', 'comm_size (bytes)'], colls.map(([k, v]) => [k, thousands(v.count), thousands(v.commSizeBytes)]));
  }
  if (r.total.sendRecv.sends + r.total.sendRecv.recvs > 0) {
    out += `\nsend/recv: ${r.total.sendRecv.sends} sends (${thousands(r.total.sendRecv.sendBytes)} bytes), ${r.total.sendRecv.recvs} recvs\n`;
  }
  const first = r.ranks[0];
  const noMeta = r.ranks.filter((x) => !x.hasMetadata).length;
  out += `\nschema: ${first?.schema ?? '(none)'}, version: ${first ? (first.hasMetadata ? first.version || '(empty)' : '(no GlobalMetadata)') : '(none)'}`;
  out += noMeta ? `; ${noMeta} rank file(s) have no GlobalMetadata (first frame is a Node)\n` : '\n';
  for (const x of r.ranks) {
    for (const d of x.diagnostics) out += `rank ${x.rank}: ${d.count} × ${d.code} (e.g. ${d.samples[0]?.message})\n`;
    if (x.cycleSample.length) out += `rank ${x.rank}: cycle ${x.cycleSample.join(' → ')}\n`;
  }
  return out;
}

export const inspectCommand: CommandSpec = {
  name: 'inspect',
  summary: 'Count nodes, compute work, collectives and dependencies per rank of a Chakra trace',
  args: [{ name: 'path', description: 'a .et file, a <prefix> of <prefix>.<rank>.et files, or a directory' }],
  options: [],
  example: 'tracewatt inspect traces/astra-sim/all_reduce/all_reduce',
  async run([target], opts, io) {
    const r = await inspectTrace(target);
    io.out(opts.json ? toJson(r) + '\n' : render(r));
    return 0;
  },
};
