/**
 * The collectives ASTRA-sim's system layer simulates on the network, by the names Chakra's CollectiveCommType gives
 * them (formats/chakra/schema.ts holds their comm_type numbers; `simulatedCollective` there maps a number to its
 * name). Every other comm_type — BROADCAST, a CPU-side collective without one — runs for its recorded duration.
 * The order is the one messages list them in.
 */
export const SIMULATED_COLLECTIVES = ['ALL_REDUCE', 'REDUCE_SCATTER', 'ALL_GATHER', 'ALL_TO_ALL'] as const;

/** One of the simulated collectives. */
export type CollectiveKind = (typeof SIMULATED_COLLECTIVES)[number];
