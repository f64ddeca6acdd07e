import { importKineto, type KinetoImportResult } from '../../engines/import/kineto.js';
import { outputErrorUnder } from '../../formats/output.js';
import { wrapText, type Cell, type Column } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { emit, rowsText, str, tableLayout, tableOptions } from '../io.js';

/** One row per rank: what was read, what was written, the measured iteration. */
function rankRows(r: KinetoImportResult): { columns: Column[]; rows: Cell[][] } {
  const columns = [
    'rank',
    'host ops',
    'kernels',
    'memcpy',
    'memset',
    'collectives',
    'carried over',
    'syncs',
    'sync deps',
    'nodes',
    'measured iteration (ns)',
  ].map((header) => ({ header, ...(header === 'rank' ? { align: 'left' as const } : {}) }));
  const rows = r.ranks.map((x) => {
    const s = x.stats;
    const syncs = Object.entries(x.measured.syncs)
      .filter(([k]) => k !== 'unresolved')
      .reduce((a, [, v]) => a + v, 0);
    return [
      x.rank,
      s.hostOps,
      s.gpuByKind.kernel,
      s.gpuByKind.memcpy,
      s.gpuByKind.memset,
      Object.values(s.collectives).reduce((a, b) => a + b, 0),
      s.carriedOver,
      syncs,
      x.measured.hostWaitDeps + x.measured.gpuWaitDeps,
      s.nodes,
      x.iteration?.ns ?? null,
    ];
  });
  return { columns, rows };
}

function summary(r: KinetoImportResult, opts: Record<string, unknown>): string {
  const t = rankRows(r);
  const width = tableLayout(opts).width;
  const lines = [rowsText(opts, t.columns, t.rows).trimEnd()];
  lines.push(
    wrapText(
      'carried over: GPU ops running in the iteration but launched before it (no launching op); syncs: CUDA synchronisation calls read; ' +
        'sync deps: the dependencies written for them (from cuda_sync records, else inferred and kept where the measured times agree)',
      width,
    ),
    '',
  );
  const first = r.ranks[0]!;
  const steps = [...new Set(r.ranks.map((x) => x.iteration?.label ?? 'no ProfilerStep'))].join(', ');
  lines.push(
    `${first.device ?? 'unknown device'}${r.worldSize ? `, world size ${r.worldSize}` : ''}, measured iteration ${steps}`,
  );
  const colls = new Map<string, number>();
  for (const x of r.ranks)
    for (const [k, v] of Object.entries(x.stats.collectives)) colls.set(k, (colls.get(k) ?? 0) + v);
  if (colls.size) lines.push(`collectives (all ranks): ${[...colls].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  const notes = new Map<string, number[]>();
  for (const x of r.ranks) for (const n of x.notes) notes.set(n, [...(notes.get(n) ?? []), x.rank]);
  for (const [n, rs] of notes)
    lines.push(
      wrapText(
        `note${r.ranks.length > 1 ? ` (rank ${rs.length === r.ranks.length ? 'all' : rs.join(', ')})` : ''}: ${n}`,
        width,
      ),
    );
  for (const n of r.notes) lines.push(wrapText(`note: ${n}`, width));
  for (const x of r.ranks) {
    const m = x.measured;
    if (m.clamped)
      lines.push(
        wrapText(
          `warning: rank ${x.rank}: ${m.clamped} node(s) start before a dependency is ready as measured (${(m.clampedNs / 1000).toFixed(1)} µs in all), e.g. ${m.clampedNotes[0] ?? ''}`,
          width,
        ),
      );
    if (m.unexplainedWaits)
      lines.push(
        wrapText(
          `note: rank ${x.rank}: ${m.unexplainedWaits} GPU op(s) waited more than 100 µs after every dependency and their launch (${(m.unexplainedWaitNs / 1e6).toFixed(3)} ms in all): work the trace does not show (another process on the GPU, events left out of the trace) — kept as measured delays`,
          width,
        ),
      );
    for (const d of x.diagnostics)
      lines.push(wrapText(`warning: rank ${x.rank}: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}`, width));
  }
  lines.push('what a Kineto trace alone cannot tell (import pytorch, with the execution trace, can):');
  for (const c of r.cannotKnow) lines.push(wrapText(`  - ${c}`, width));
  if (r.commGroupsFile) lines.push(`wrote ${r.commGroupsFile} (process groups: pass it to replay as --comm-group)`);
  lines.push(
    `wrote ${r.ranks.length === 1 ? first.file : `${r.out}.<rank>.et (${r.ranks.map((x) => x.rank).join(', ')})`}`,
  );
  return `${lines.join('\n')}\n`;
}

export const importKinetoCommand: CommandSpec = {
  name: 'import kineto',
  summary:
    'Convert Kineto / PyTorch profiler traces alone (one per rank, no execution trace) into Chakra traces with their measured timeline',
  args: [
    {
      name: 'traces',
      description: 'the Kineto trace (.json or .json.gz) of each rank',
      variadic: true,
      optional: true,
    },
  ],
  options: [
    {
      name: 'dir',
      value: 'folder',
      description: 'a folder holding the Kineto trace of every rank (instead of listing them)',
    },
    {
      name: 'out',
      value: 'prefix',
      description: "writes <prefix>.<rank>.et (rank from the trace's distributedInfo)",
      required: true,
    },
    {
      name: 'step',
      value: 'name',
      description: 'the ProfilerStep to take as the measured iteration, e.g. ProfilerStep#12 (default: the longest)',
    },
    {
      name: 'window',
      value: 'start:end',
      description:
        'instead of a step: the span to take, µs as the trace writes "ts" (for a trace without ProfilerStep)',
    },
    {
      name: 'partial',
      description:
        'import the ranks given although the run had more (said; replay --as-measured works on them, a modelled replay needs every rank)',
    },
    ...tableOptions('one row per rank'),
  ],
  example: 'tracewatt import kineto --dir traces/pytorch-real/dlrm --out out/dlrm-kineto',
  async run(args, opts, io) {
    let r: KinetoImportResult;
    try {
      r = await importKineto({
        traces: args,
        dir: str(opts, 'dir'),
        out: String(opts.out),
        step: str(opts, 'step'),
        window: str(opts, 'window'),
        partial: Boolean(opts.partial),
      });
    } catch (e) {
      throw outputErrorUnder(String(opts.out), e);
    }
    emit(io, opts, r, { table: () => rankRows(r), text: () => summary(r, opts) });
    return 0;
  },
};
