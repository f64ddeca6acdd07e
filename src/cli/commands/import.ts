import { importPytorch, type ImportPair } from '../../engines/import/index.js';
import { InputError } from '../../errors.js';
import { outputErrorUnder } from '../../formats/output.js';
import { importRankRows, importText } from '../../report/text/import.js';
import { defineCommand } from '../command.js';
import { emit, tableLayout, tableOptions } from '../io.js';

export const importPytorchCommand = defineCommand({
  name: 'import pytorch',
  summary: 'Convert PyTorch execution traces and Kineto traces of the same run (one pair per rank) into Chakra traces',
  args: [],
  options: [
    {
      name: 'et',
      type: 'string',
      value: 'file',
      description: 'PyTorch execution trace (.json or .json.gz) of one rank (repeatable, in the order of --kineto)',
      repeatable: true,
    },
    {
      name: 'kineto',
      type: 'string',
      value: 'file',
      description: 'Kineto / torch.profiler trace (.json or .json.gz) of the same rank (repeatable)',
      repeatable: true,
    },
    {
      name: 'dir',
      type: 'string',
      value: 'folder',
      description:
        'a folder with the execution and Kineto traces of every rank, paired by process id (instead of --et/--kineto)',
    },
    {
      name: 'out',
      type: 'string',
      value: 'prefix',
      description: "a prefix: writes <prefix>.<rank>.et (rank from the Kineto trace's distributedInfo)",
      required: true,
    },
    {
      name: 'step',
      type: 'string',
      value: 'name',
      description:
        'the ProfilerStep to record as the measured iteration (default: the one the execution trace falls in)',
    },
    {
      name: 'window',
      type: 'string',
      value: 'start:end',
      description:
        'instead of a step: the span to record as the measured iteration, µs as the Kineto trace writes "ts"',
    },
    {
      name: 'partial',
      type: 'boolean',
      description:
        'import the ranks given although the run had more, or (--dir) although some Kineto traces have no ' +
        'execution trace (said; replay --as-measured works on them, a modelled replay needs every rank)',
    },
    ...tableOptions('one row per rank'),
  ],
  example:
    'tracewatt import pytorch --et traces/pytorch-real/simple_add/et.json.gz --kineto ' +
    'traces/pytorch-real/simple_add/kineto.json.gz --out out/simple_add',
  async run(_args, opts, io) {
    const ets = opts.et;
    const kinetos = opts.kineto;
    if (opts.dir !== undefined && (ets.length || kinetos.length))
      throw new InputError('give --dir or --et/--kineto pairs, not both');
    if (opts.dir === undefined && (ets.length === 0 || ets.length !== kinetos.length)) {
      throw new InputError(
        `give one --kineto for each --et (got ${ets.length} --et, ${kinetos.length} --kineto), or --dir`,
      );
    }
    const pairs: ImportPair[] = ets.map((et, i) => ({ et, kineto: kinetos[i]! }));
    const r = await runImport(opts, (common) => importPytorch({ pairs, ...common }));
    emit(io, opts, r, { table: () => importRankRows(r), text: () => importText(r, tableLayout(opts)) });
    return 0;
  },
});

/** What import pytorch and import kineto share: where to write, which iteration, whether a partial run will do. */
interface CommonImportOptions {
  dir?: string;
  out: string;
  step?: string;
  window?: string;
  partial: boolean;
}

/** Runs an import with the options both import commands share; a file-system error under --out is named as one. */
export function runImport<R>(opts: CommonImportOptions, run: (common: CommonImportOptions) => Promise<R>): Promise<R> {
  const { dir, out, step, window, partial } = opts;
  return run({ dir, out, step, window, partial }).catch((e: unknown) => {
    throw outputErrorUnder(out, e);
  });
}
