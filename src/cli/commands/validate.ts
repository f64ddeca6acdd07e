import { validateTrace } from '../../engines/trace/validate.js';
import { defineCommand } from '../command.js';
import { problemRows, validationText } from '../../report/text/validate.js';
import { emit, tableOptions } from '../io.js';

const MAX_PER_CODE = 20;

export const validateCommand = defineCommand({
  name: 'validate',
  summary: 'Report every problem ASTRA-sim would reject or misread; exit 0 only when there are no errors',
  args: [{ name: 'path', description: 'a .et file, a <prefix> of <prefix>.<rank>.et files, or a directory' }],
  options: [
    {
      name: 'max-per-code',
      value: 'n',
      type: 'int',
      min: 0,
      description: 'list at most n problems of each kind per rank (all are counted)',
      default: MAX_PER_CODE,
    },
    ...tableOptions('one row per problem listed'),
  ],
  example: 'tracewatt validate traces/astra-sim/all_to_all/8npus_1MB/all_to_all',
  async run([target], opts, io) {
    const r = await validateTrace(target, opts.maxPerCode);
    emit(io, opts, { ...r, valid: r.errors === 0 }, { table: () => problemRows(r), text: () => validationText(r) });
    return r.errors === 0 ? 0 : 1;
  },
});
