import { toJson } from '../../formats/json.js';
import { validateTrace } from '../../engines/trace/validate.js';
import { defineCommand } from '../command.js';
import { rowsText, tableOptions } from '../io.js';

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
    if (opts.json) {
      io.out(`${toJson({ ...r, valid: r.errors === 0 })}\n`);
    } else if (opts.csv) {
      const columns = [
        { header: 'severity' },
        { header: 'code' },
        { header: 'file' },
        { header: 'rank' },
        { header: 'node id' },
        { header: 'message' },
      ];
      io.out(
        rowsText(
          opts,
          columns,
          r.problems.map((p) => [p.severity, p.code, p.file, p.rank, p.nodeId, p.message]),
        ),
      );
    } else {
      for (const p of r.problems) io.out(`${p.severity}: ${p.file}: ${p.message}\n`);
      const counts = Object.entries(r.counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ');
      io.out(
        `${r.errors === 0 ? 'valid' : 'INVALID'}: ${r.ranks} rank(s), ${r.nodes} nodes, ${r.errors} error(s), ${r.warnings} warning(s)${counts ? ` (${counts})` : ''}\n`,
      );
    }
    return r.errors === 0 ? 0 : 1;
  },
});
