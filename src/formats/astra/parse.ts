/**
 * Parsers for the ASTRA-sim 2.x inputs (system.json, network.yml, remote memory JSON, comm-group
 * JSON) and tracewatt's power.json. Every problem is a FormatError naming the file and the key's JSON path
 * (json-shape.ts).
 * Every key ASTRA-sim's parsers read (astra-sim 518bd51: Sys::initialize_sys, CollectiveImplLookup; the analytical
 * network's NetworkParser; the analytical remote memory) is known: keys that do not change the analytical result
 * are accepted, with a warning when they ask for something tracewatt does not do (a local memory trace); keys
 * tracewatt does not know, and settings it does not model, are refused by name. Every number is range-checked
 * where it is read, against {@link CONFIG_LIMITS} (limit and unit in the message).
 */
import { parseJsonText, readTextFile } from '../text-file.js';
import { parseYamlText } from '../yaml-text.js';
import type { Diagnostics } from '../../diagnostics.js';
import { FormatError } from '../../errors.js';
import { describeJson, jsonPath, JsonShape, type JsonObject, type NumRange } from '../json-shape.js';
import type { CollectiveKind } from '../../vocab/collectives.js';
import type {
  CollectiveImplName,
  CommGroupConfig,
  MemoryType,
  NetworkConfig,
  NetworkDim,
  PowerConfig,
  RemoteMemoryConfig,
  SystemConfig,
  TopologyKind,
} from './types.js';

const parseJson = parseJsonText;

/**
 * The ranges tracewatt accepts for the numbers of the ASTRA-sim configs, with their units: wide enough for any real
 * machine, narrow enough that every time and energy derived from them stays a finite number (a bandwidth of 1e-300
 * GB/s, a latency of 1e300 ns or 1e9 dataset splits made figures Infinity or exhausted memory).
 */
export const CONFIG_LIMITS = {
  /** Per dimension and in all (the product of npus_count). */
  npus: { integer: true, min: 1, max: 1_048_576, unit: 'NPUs' },
  bandwidthGBps: { min: 1e-6, max: 1e12, unit: 'GB/s' },
  latencyNs: { min: 0, max: 1e12, unit: 'ns' },
  endpointDelayNs: { integer: true, min: 1, max: 1e12, unit: 'ns' },
  /** ASTRA-sim makes one stream per split; tracewatt times every chunk of a collective. */
  datasetSplits: { integer: true, min: 1, max: 4096, unit: 'splits' },
  activeChunks: { integer: true, min: 1, max: 65_536, unit: 'chunks' },
  localMemBandwidthGBps: { min: 1e-6, max: 1e12, unit: 'GB/s' },
  peakPerfTFlops: { min: 0, max: 1e9, unit: 'TFLOPS' },
  /** peak-perf when roofline-enabled uses it. */
  rooflinePeakPerfTFlops: { min: 1e-6, max: 1e9, unit: 'TFLOPS' },
  remoteMemLatencyNs: { min: 0, max: 1e12, unit: 'ns' },
  remoteMemBandwidthGBps: { min: 1e-6, max: 1e12, unit: 'GB/s' },
} as const satisfies Record<string, NumRange>;

/**
 * The ranges of the power configuration's numbers (`--power` JSON), with their units: a GPU board draws at most a few
 * kW, a link or DRAM access costs at most nJ per bit; far beyond either is a typing error, and would make energies
 * of 1e300 J or Infinity.
 */
export const POWER_LIMITS = {
  gpuPowerW: { min: 0, max: 10_000, unit: 'W' },
  frequencyMHz: { min: 0, max: 100_000, unit: 'MHz' },
  energyPjPerBit: { min: 0, max: 1_000_000, unit: 'pJ/bit' },
  bandwidthGBps: { min: 0, max: 1e12, unit: 'GB/s' },
  perRankPowerW: { min: 0, max: 100_000, unit: 'W' },
} as const satisfies Record<string, NumRange>;

// ---------------------------------------------------------------------------------------------
// network.yml

const TOPOLOGIES: readonly TopologyKind[] = ['Ring', 'Switch', 'FullyConnected'];

export function parseNetworkConfig(file: string, text: string): NetworkConfig {
  const c = new JsonShape(file);
  const o = c.object(parseYamlText(file, text), '', 'a network description (a YAML mapping)');
  c.refuseUnknown(o, '', ['topology', 'npus_count', 'bandwidth', 'latency']);
  const perDim = 'a list of numbers, one per dimension';
  c.requireKeys(o, '', {
    topology: 'a list of Ring | Switch | FullyConnected, one per dimension',
    npus_count: perDim,
    bandwidth: perDim,
    latency: perDim,
  });
  const topo = c.list(o, 'topology', '', 1);
  const npus = c.numberList(o, 'npus_count', '', { ...CONFIG_LIMITS.npus, minLength: 1 });
  const bw = c.numberList(o, 'bandwidth', '', { ...CONFIG_LIMITS.bandwidthGBps, minLength: 1 });
  const lat = c.numberList(o, 'latency', '', { ...CONFIG_LIMITS.latencyNs, minLength: 1 });
  const total = npus.reduce((a, n) => a * n, 1);
  if (total > CONFIG_LIMITS.npus.max) {
    throw new FormatError(
      file,
      'npus_count',
      `describes ${total} NPUs in all; at most ${CONFIG_LIMITS.npus.max} NPUs are simulated`,
    );
  }
  for (const [key, list] of [
    ['npus_count', npus],
    ['bandwidth', bw],
    ['latency', lat],
  ] as const) {
    if (list.length !== topo.length) {
      throw new FormatError(
        file,
        key,
        `has ${list.length} entries but "topology" has ${topo.length}: one entry per dimension is required`,
      );
    }
  }
  const dims: NetworkDim[] = topo.map((_, i) => ({
    topology: c.oneOfValue(topo[i], `topology[${i}]`, TOPOLOGIES),
    npus: npus[i]!,
    bandwidthGBps: bw[i]!,
    latencyNs: lat[i]!,
  }));
  return { file, dims };
}

export async function loadNetworkConfig(file: string): Promise<NetworkConfig> {
  return parseNetworkConfig(file, await readTextFile(file));
}

// ---------------------------------------------------------------------------------------------
// system.json

/** The system.json key naming each collective's implementation per dimension. */
export const IMPL_KEYS: Readonly<Record<CollectiveKind, string>> = {
  ALL_REDUCE: 'all-reduce-implementation',
  REDUCE_SCATTER: 'reduce-scatter-implementation',
  ALL_GATHER: 'all-gather-implementation',
  ALL_TO_ALL: 'all-to-all-implementation',
};
const IMPLS: readonly CollectiveImplName[] = ['ring', 'direct', 'halvingDoubling'];
/** Implementations ASTRA-sim has (CollectiveImplLookup) that tracewatt does not model. */
const UNMODELLED_IMPLS = ['oneRing', 'doubleBinaryTree', 'oneDirect', 'oneHalvingDoubling'];
/**
 * Read by ASTRA-sim without effect on the analytical timing tracewatt reproduces: boost-mode (read by older builds
 * only); the shared memory bus's LogGP parameters and local-reduction-delay (used only with model-shared-bus 1, which
 * is refused); trace-enabled, track-local-mem and local-mem-trace-filename (logging and a memory-usage trace, which
 * tracewatt does not write: a warning says so when they ask for it).
 */
const IGNORED_SYSTEM_KEYS = [
  'boost-mode',
  'L',
  'o',
  'g',
  'G',
  'model-shared-bus',
  'trace-enabled',
  'local-reduction-delay',
  'track-local-mem',
  'local-mem-trace-filename',
];
/** Custom collectives (Chakra ETs per collective) ASTRA-sim can run: not modelled, refused by name. */
const CUSTOM_IMPL_KEYS = [...Object.values(IMPL_KEYS).map((k) => `${k}-custom`), 'per-node-custom-implementation'];
const SYSTEM_KEYS = [
  'scheduling-policy',
  'endpoint-delay',
  'active-chunks-per-dimension',
  'preferred-dataset-splits',
  ...Object.values(IMPL_KEYS),
  'collective-optimization',
  'local-mem-bw',
  'peak-perf',
  'roofline-enabled',
  'replay-only',
  'intra-dimension-scheduling',
  'inter-dimension-scheduling',
  ...IGNORED_SYSTEM_KEYS,
  ...CUSTOM_IMPL_KEYS,
];

/** Keys that ask ASTRA-sim for outputs tracewatt does not make: a warning (they do not change any figure). */
function warnIgnored(file: string, o: JsonObject, diagnostics?: Diagnostics): void {
  const asked = (k: string) => o[k] !== undefined && o[k] !== 0 && o[k] !== false;
  const keys = ['trace-enabled', 'track-local-mem', 'local-mem-trace-filename'].filter(asked);
  if (keys.length === 0) return;
  diagnostics?.add('system.ignored-key', {
    file,
    message:
      `${file}: ${keys.map((k) => `"${k}"`).join(', ')} ask${keys.length === 1 ? 's' : ''} ASTRA-sim for its own ` +
      `logs or local memory trace; tracewatt does not write them (ignored, no figure changes)`,
  });
}

export function parseSystemConfig(file: string, text: string, diagnostics?: Diagnostics): SystemConfig {
  const c = new JsonShape(file);
  const o = c.object(parseJson(file, text), '', 'a system configuration (a JSON object)');
  c.refuseUnknown(o, '', SYSTEM_KEYS);
  for (const key of CUSTOM_IMPL_KEYS) {
    if (o[key] !== undefined)
      throw new FormatError(
        file,
        key,
        'custom collective implementations (Chakra ETs run as collectives) are not modelled; use the native ' +
          'ring, direct or halvingDoubling',
      );
  }
  for (const key of ['intra-dimension-scheduling', 'inter-dimension-scheduling'] as const) {
    const dflt = key === 'intra-dimension-scheduling' ? 'FIFO' : 'ascending';
    if (o[key] !== undefined && o[key] !== dflt) {
      throw new FormatError(
        file,
        key,
        `only "${dflt}" (ASTRA-sim's default) is modelled, found ${describeJson(o[key])}`,
      );
    }
  }
  if (c.flag(o, 'model-shared-bus', '')) {
    throw new FormatError(
      file,
      'model-shared-bus',
      "the shared memory bus (LogGP L, o, g, G) is not modelled; only 0, ASTRA-sim's default, is",
    );
  }
  if (o['scheduling-policy'] === 'EXPLICIT') {
    throw new FormatError(
      file,
      'scheduling-policy',
      '"EXPLICIT" (priorities from the trace) is not modelled; use LIFO or FIFO',
    );
  }
  warnIgnored(file, o, diagnostics);
  if (o['collective-optimization'] === undefined) {
    diagnostics?.add('system.default-collective-optimization', {
      file,
      message: `${file}: no "collective-optimization"; using "baseline" (ASTRA-sim leaves it unset)`,
    });
  }
  c.requireKeys(o, '', { 'preferred-dataset-splits': 'an integer ≥ 1', 'local-mem-bw': 'a number > 0 GB/s' });
  const implementations = {} as Record<CollectiveKind, CollectiveImplName[] | undefined>;
  for (const [kind, key] of Object.entries(IMPL_KEYS) as [CollectiveKind, string][]) {
    const list = o[key] === undefined ? undefined : c.stringList(o, key, '', 1);
    implementations[kind] = list?.map((s, i) => {
      if (!(IMPLS as readonly string[]).includes(s)) {
        const known = UNMODELLED_IMPLS.includes(s) || /^(one)?[dD]irect\d+$/.test(s);
        throw new FormatError(
          file,
          `${key}[${i}]`,
          `${describeJson(s)} is ` +
            (known ? 'an ASTRA-sim implementation tracewatt does not model' : 'not an implementation ASTRA-sim knows') +
            `; use one of ${IMPLS.join(' | ')}`,
        );
      }
      return s as CollectiveImplName;
    });
  }
  const cfg: SystemConfig = {
    file,
    schedulingPolicy: c.oneOf(o, 'scheduling-policy', '', ['LIFO', 'FIFO'] as const, 'LIFO'),
    endpointDelayNs: c.number(o, 'endpoint-delay', '', { ...CONFIG_LIMITS.endpointDelayNs, def: 10 }),
    activeChunksPerDimension: c.number(o, 'active-chunks-per-dimension', '', { ...CONFIG_LIMITS.activeChunks, def: 1 }),
    preferredDatasetSplits: c.number(o, 'preferred-dataset-splits', '', CONFIG_LIMITS.datasetSplits),
    implementations,
    collectiveOptimization: c.oneOf(
      o,
      'collective-optimization',
      '',
      ['localBWAware', 'baseline'] as const,
      'baseline',
    ),
    localMemBandwidthGBps: c.number(o, 'local-mem-bw', '', CONFIG_LIMITS.localMemBandwidthGBps),
    peakPerfTFlops: c.number(o, 'peak-perf', '', { ...CONFIG_LIMITS.peakPerfTFlops, def: 0 }),
    rooflineEnabled: c.flag(o, 'roofline-enabled', ''),
    replayOnly: c.flag(o, 'replay-only', ''),
  };
  const peak = CONFIG_LIMITS.rooflinePeakPerfTFlops;
  if (cfg.rooflineEnabled && !(cfg.peakPerfTFlops >= peak.min)) {
    throw new FormatError(
      file,
      'peak-perf',
      `roofline-enabled needs a peak-perf (TFLOPS) ≥ ${peak.min} ${peak.unit}, found ` +
        String(o['peak-perf'] === undefined ? 'none' : cfg.peakPerfTFlops),
    );
  }
  return cfg;
}

export async function loadSystemConfig(file: string, diagnostics?: Diagnostics): Promise<SystemConfig> {
  return parseSystemConfig(file, await readTextFile(file), diagnostics);
}

/**
 * Checks the implementation lists against the network: each list must have one entry per
 * dimension. ASTRA-sim silently simulates fewer dimensions when a list is shorter; we refuse.
 */
export function checkSystemAgainstNetwork(sys: SystemConfig, net: NetworkConfig, diagnostics?: Diagnostics): void {
  for (const [kind, key] of Object.entries(IMPL_KEYS) as [CollectiveKind, string][]) {
    const list = sys.implementations[kind];
    if (!list) continue;
    if (list.length < net.dims.length) {
      throw new FormatError(
        sys.file,
        key,
        `has ${list.length} entr${list.length === 1 ? 'y' : 'ies'} but ${net.file} describes ${net.dims.length}` +
          ` dimensions: ` +
          'give one implementation per dimension (ASTRA-sim would silently simulate fewer dimensions)',
      );
    }
    if (list.length > net.dims.length) {
      diagnostics?.add('system.extra-implementations', {
        file: sys.file,
        message:
          `${sys.file}: "${key}" lists ${list.length} implementations for ${net.dims.length} dimensions; the ` +
          `extra ones are ignored`,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// remote memory JSON

const MEMORY_TYPES: readonly MemoryType[] = [
  'NO_MEMORY_EXPANSION',
  'PER_NPU_MEMORY_EXPANSION',
  'PER_NODE_MEMORY_EXPANSION',
  'MEMORY_POOL',
];

export function parseRemoteMemoryConfig(file: string, text: string): RemoteMemoryConfig {
  const c = new JsonShape(file);
  const o = c.object(parseJson(file, text), '', 'a remote memory configuration (a JSON object)');
  c.refuseUnknown(o, '', ['memory-type', 'remote-mem-latency', 'remote-mem-bw', 'num-nodes', 'num-npus-per-node']);
  const memoryType = c.oneOf(o, 'memory-type', '', MEMORY_TYPES);
  if (memoryType === 'NO_MEMORY_EXPANSION') return { file, memoryType, latencyNs: 0, bandwidthGBps: 0 };
  return {
    file,
    memoryType,
    latencyNs: c.number(o, 'remote-mem-latency', '', CONFIG_LIMITS.remoteMemLatencyNs),
    bandwidthGBps: c.number(o, 'remote-mem-bw', '', CONFIG_LIMITS.remoteMemBandwidthGBps),
  };
}

export async function loadRemoteMemoryConfig(file: string): Promise<RemoteMemoryConfig> {
  return parseRemoteMemoryConfig(file, await readTextFile(file));
}

// ---------------------------------------------------------------------------------------------
// comm-group JSON

export function parseCommGroupConfig(file: string, text: string, rankCount?: number): CommGroupConfig {
  const c: JsonShape = new JsonShape(file);
  const o = c.object(parseJson(file, text), '', 'a comm-group map (pg_name → ranks, a JSON object)');
  const groups = new Map<string, number[]>();
  for (const name of Object.keys(o)) {
    if (name === '0')
      throw new FormatError(file, '0', 'group id 0 is reserved for all ranks (ASTRA-sim aborts on it); use another id');
    const list = c.list(o, name, '', 1, 'a non-empty list of ranks');
    const seen = new Set<number>();
    const ranks = list.map((r, i) => {
      const at = jsonPath(name, i);
      if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) c.expected(at, 'a rank (integer ≥ 0)', r);
      if (rankCount !== undefined && r >= rankCount)
        c.fail(at, `rank ${r} does not exist (the trace has ${rankCount} ranks)`);
      if (seen.has(r)) c.fail(at, `rank ${r} listed twice`);
      seen.add(r);
      return r;
    });
    groups.set(name, ranks);
  }
  return { file, groups };
}

export async function loadCommGroupConfig(file: string, rankCount?: number): Promise<CommGroupConfig> {
  return parseCommGroupConfig(file, await readTextFile(file), rankCount);
}

// ---------------------------------------------------------------------------------------------
// power.json

function componentPowers(c: JsonShape, gpu: JsonObject): Record<string, number> {
  const path = 'gpu.componentPowersW';
  const o = c.child(gpu, 'componentPowersW', 'gpu', { what: 'an object {component: W}' });
  return Object.fromEntries(Object.keys(o).map((k) => [k, c.number(o, k, path, POWER_LIMITS.gpuPowerW)]));
}

export function parsePowerConfig(file: string, text: string): PowerConfig {
  const c = new JsonShape(file);
  const o = c.object(parseJson(file, text), '', 'a power configuration (a JSON object)');
  c.refuseUnknown(o, '', [
    'name',
    'description',
    'sources',
    'assumptions',
    'gpu',
    'memory',
    'network',
    'networkIdlePowerWPerRank',
    'hostPowerWPerRank',
  ]);
  const gpu = c.child(o, 'gpu', '', { what: 'an object {activePowerW, idlePowerW}' });
  c.refuseUnknown(gpu, 'gpu', [
    'activePowerW',
    'idlePowerW',
    'idleSource',
    'commPowerW',
    'frequencyMHz',
    'componentPowersW',
  ]);
  if (gpu.idleSource !== undefined)
    c.string(gpu, 'idleSource', 'gpu', { what: 'a string (where idlePowerW comes from)' });
  const mem = c.child(o, 'memory', '', { optional: true, what: 'an object {energyPjPerBit}' });
  c.refuseUnknown(mem, 'memory', ['energyPjPerBit', 'remoteEnergyPjPerBit']);
  const netList = c.list(o, 'network', '', 1, 'a list with one {name, energyPjPerBit} per network dimension');
  const memEnergy = c.number(mem, 'energyPjPerBit', 'memory', { ...POWER_LIMITS.energyPjPerBit, def: 0 });
  const name = o.name === undefined ? file : c.string(o, 'name', '');
  const gpuPower = (key: string, range: NumRange) =>
    gpu[key] === undefined ? undefined : c.number(gpu, key, 'gpu', range);
  const commPowerW = gpuPower('commPowerW', POWER_LIMITS.gpuPowerW);
  const frequencyMHz = gpuPower('frequencyMHz', POWER_LIMITS.frequencyMHz);
  return {
    file,
    name,
    gpu: {
      activePowerW: c.number(gpu, 'activePowerW', 'gpu', POWER_LIMITS.gpuPowerW),
      idlePowerW: c.number(gpu, 'idlePowerW', 'gpu', POWER_LIMITS.gpuPowerW),
      ...(gpu.idleSource === undefined ? {} : { idleSource: gpu.idleSource as string }),
      ...(commPowerW === undefined ? {} : { commPowerW }),
      ...(frequencyMHz === undefined ? {} : { frequencyMHz }),
      ...(gpu.componentPowersW === undefined ? {} : { componentPowersW: componentPowers(c, gpu) }),
    },
    memory: {
      energyPjPerBit: memEnergy,
      remoteEnergyPjPerBit: c.number(mem, 'remoteEnergyPjPerBit', 'memory', {
        ...POWER_LIMITS.energyPjPerBit,
        def: memEnergy,
      }),
    },
    network: netList.map((d, i) => {
      const at = jsonPath('network', i);
      const e = c.object(d, at);
      c.refuseUnknown(e, at, ['name', 'energyPjPerBit', 'bandwidthGBps', 'note']);
      return {
        name: typeof e.name === 'string' ? e.name : `dim${i}`,
        energyPjPerBit: c.number(e, 'energyPjPerBit', at, POWER_LIMITS.energyPjPerBit),
        ...(e.bandwidthGBps === undefined
          ? {}
          : { bandwidthGBps: c.number(e, 'bandwidthGBps', at, POWER_LIMITS.bandwidthGBps) }),
      };
    }),
    networkIdlePowerWPerRank: c.number(o, 'networkIdlePowerWPerRank', '', { ...POWER_LIMITS.perRankPowerW, def: 0 }),
    hostPowerWPerRank: c.number(o, 'hostPowerWPerRank', '', { ...POWER_LIMITS.perRankPowerW, def: 0 }),
  };
}

export async function loadPowerConfig(file: string): Promise<PowerConfig> {
  return parsePowerConfig(file, await readTextFile(file));
}
