import { importPytorch, type ImportPair, type ImportResult } from '../../engines/import/index.js';
import { InputError } from '../../errors.js';
import { outputErrorUnder } from '../../formats/output.js';
import type { Cell, Column } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { emit, rowsText, str, tableOptions } from '../io.js';

const list = (v: unknown) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map(String));

/** One row per rank: operators linked, GPU events by kind, nodes written. */
function rankRows(r: ImportResult): { columns: Column[]; rows: Cell[][] } {
  const columns = [
    'rank',
    'ET ops',
    'linked',
    'by rf_id',
    'Kineto ops',
    'GPU events',
    'kernels',
    'memcpy',
    'memset',
    'collectives',
    'left out',
    'nodes',
    'GPU compute (µs)',
    'measured iteration (ns)',
  ].map((header) => ({ header }));
  const rows = r.ranks.map((x) => {
    const g = x.link.gpu;
    const coll = Object.values(x.convert.collectives).reduce((a, b) => a + b, 0);
    return [
      x.rank,
      x.link.etOps,
      x.link.linkedByRfId + x.link.linkedBySequence,
      x.link.linkedByRfId,
      x.link.kinetoOps,
      g.events,
      x.convert.gpuByKind.kernel,
      x.convert.gpuByKind.memcpy,
      x.convert.gpuByKind.memset,
      coll,
      g.noLaunch + g.outside,
      x.convert.nodes,
      x.convert.gpuComputeMicros,
      x.measured?.window.iterationNs ?? null,
    ];
  });
  return { columns, rows };
}

function summary(r: ImportResult, opts: Record<string, unknown>): string {
  const t = rankRows(r);
  const lines = [rowsText(opts, t.columns, t.rows).trimEnd(), ''];
  const first = r.ranks[0]!;
  lines.push(
    `${first.device ?? 'unknown device'}, execution-trace schema ${first.etSchema}${first.measured ? `, measured iteration ${first.measured.window.label}` : first.steps.length ? `, iteration ${first.steps.join(', ')}` : ''}`,
  );
  const colls = new Map<string, number>();
  for (const x of r.ranks)
    for (const [k, v] of Object.entries(x.convert.collectives)) colls.set(k, (colls.get(k) ?? 0) + v);
  if (colls.size) lines.push(`collectives (all ranks): ${[...colls].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  const notes = new Map<string, number[]>();
  for (const x of r.ranks) for (const n of x.notes) notes.set(n, [...(notes.get(n) ?? []), x.rank]);
  for (const [n, rs] of notes)
    lines.push(
      `note${r.ranks.length > 1 ? ` (rank ${rs.length === r.ranks.length ? 'all' : rs.join(', ')})` : ''}: ${n}`,
    );
  for (const n of r.notes) lines.push(`note: ${n}`);
  for (const x of r.ranks)
    for (const d of x.diagnostics)
      lines.push(`warning: rank ${x.rank}: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}`);
  lines.push(
    `wrote ${r.ranks.length === 1 ? first.file : `${r.out}.<rank>.et (${r.ranks.map((x) => x.rank).join(', ')})`}`,
  );
  return `${lines.join('\n')}\n`;
}

export const importPytorchCommand: CommandSpec = {
  name: 'import pytorch',
  summary: 'Convert PyTorch execution traces and Kineto traces of the same run (one pair per rank) into Chakra traces',
  args: [],
  options: [
    {
      name: 'et',
      value: 'file',
      description: 'PyTorch execution trace (.json or .json.gz) of one rank (repeatable, in the order of --kineto)',
      repeatable: true,
    },
    {
      name: 'kineto',
      value: 'file',
      description: 'Kineto / torch.profiler trace (.json or .json.gz) of the same rank (repeatable)',
      repeatable: true,
    },
    {
      name: 'dir',
      value: 'folder',
      description:
        'a folder with the execution and Kineto traces of every rank, paired by process id (instead of --et/--kineto)',
    },
    {
      name: 'out',
      value: 'prefix',
      description: "writes <prefix>.<rank>.et (rank from the Kineto trace's distributedInfo)",
      required: true,
    },
    {
      name: 'step',
      value: 'name',
      description:
        'the ProfilerStep to record as the measured iteration (default: the one the execution trace falls in)',
    },
    {
      name: 'window',
      value: 'start:end',
      description:
        'instead of a step: the span to record as the measured iteration, µs as the Kineto trace writes "ts"',
    },
    {
      name: 'partial',
      description:
        'import the ranks given although the run had more, or (--dir) although some Kineto traces have no execution trace (said; replay --as-measured works on them, a modelled replay needs every rank)',
    },
    ...tableOptions('one row per rank'),
  ],
  example:
    'tracewatt import pytorch --et traces/pytorch-real/simple_add/et.json.gz --kineto traces/pytorch-real/simple_add/kineto.json.gz --out out/simple_add',
  async run(_args, opts, io) {
    const ets = list(opts.et);
    const kinetos = list(opts.kineto);
    if (opts.dir !== undefined && (ets.length || kinetos.length))
      throw new InputError('give --dir or --et/--kineto pairs, not both');
    if (opts.dir === undefined && (ets.length === 0 || ets.length !== kinetos.length)) {
      throw new InputError(
        `give one --kineto for each --et (got ${ets.length} --et, ${kinetos.length} --kineto), or --dir`,
      );
    }
    const pairs: ImportPair[] = ets.map((et, i) => ({ et, kineto: kinetos[i]! }));
    let r: ImportResult;
    try {
      r = await importPytorch({
        pairs,
        dir: opts.dir === undefined ? undefined : String(opts.dir),
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
