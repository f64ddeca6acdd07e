/** The most points one sweep (and so one merge of its shards) may have; the CLI parses ranges (cli/options.ts). */
export const MAX_SWEEP_POINTS = 10_000;
