/**
 * `export astra-sim`: everything ASTRA-sim needs to run a (annotated) trace, in one folder:
 *   workload/<name>.<rank>.et   the rank files, read and written through the Chakra reader and writer: a node no
 *                               repair touches is written back byte for byte (repair.ts lists what is changed)
 *   system.json, network.yml, memory.json[, comm-group.json]   the configurations (copied as given, once they parse;
 *                               an annotated trace's system.json with roofline-enabled 0, so that ASTRA-sim runs the
 *                               annotated durations, as replay does, instead of recomputing them from num_ops)
 *   power.json                  tracewatt's power config for `energy` (annotate's <prefix>.power.json, or --power)
 *   run.sh                      runs ASTRA-sim's analytical backend (congestion-unaware or -aware) on them; its log
 *                               starts with the export's fingerprint (SHA-256 of the rank files and configs)
 *   export.json                 what was written, every repair, and the fingerprint
 * Each rank is read twice: once for its ids (dangling dependencies, duplicates, cycles), once to repair and write.
 * On an error every file written so far is removed. The new files replace the folder's earlier export whole: rank
 * files of another prefix in workload/, and a comm-group.json or power.json this export does not write, go.
 * What `export astra-sim` writes validates without errors (repair.ts makes or refuses every node validate flags).
 */
import { chmod, stat } from 'node:fs/promises';
import path from 'node:path';
import { toJson } from '../../formats/json.js';
import { ANNOTATION_ATTRS } from '../../vocab/attributes.js';
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import {
  checkSystemAgainstNetwork,
  loadCommGroupConfig,
  loadNetworkConfig,
  loadRemoteMemoryConfig,
  loadSystemConfig,
  type CommGroupConfig,
  type ExportFingerprint,
  type RemoteMemoryConfig,
  type SystemConfig,
} from '../../formats/astra/index.js';
import {
  attrBool,
  attrBoolList,
  attrInt,
  attrNumber,
  attrString,
  missingRankProblem,
  NodeType,
  nodeValueProblem,
  openTrace,
  resolveRankFiles,
  TraceWriter,
  type ChakraNode,
  type GlobalMetadata,
  type RankFile,
} from '../../formats/chakra/index.js';
import { rankFilesDigest, textDigest } from '../../formats/digest.js';
import { OutputSet, outputError } from '../../formats/output.js';
import { readTextFile } from '../../formats/text-file.js';
import {
  DEFAULT_POWER_PRESET,
  measuredIterations,
  measuredStartOffsets,
  POWER_PRESETS,
  presetPath,
  resolvePower,
} from '../replay/index.js';
import { CrossRankCheck } from '../replay/collective-sequence.js';
import { DependencyGraph } from '../trace/graph.js';
import { REPAIRS, repairNode, type RepairCode, type RepairContext } from './repair.js';
import { astraSimCommand, energyCommandLine, runScript, type ExportedFiles } from './run-script.js';

export interface ExportInput {
  /** <prefix> of <prefix>.<rank>.et files, a directory, or one .et file. */
  trace: string;
  /** Folder to write into (created when missing). */
  out: string;
  /** Default: <prefix>.system.json beside the trace (as `generate llm` writes it). */
  system?: string;
  /** Default: <prefix>.network.yml beside the trace. */
  network?: string;
  /** Remote memory JSON; default: NO_MEMORY_EXPANSION. */
  memory?: string;
  commGroup?: string;
  /**
   * tracewatt's power.json (or a preset name) for the energy breakdown of ASTRA-sim's run; default: the
   * <prefix>.power.json beside the trace, as annotate writes it.
   */
  power?: string;
  /** comm_size (bytes) for collectives that have none; without it such a trace is refused. */
  commSizeBytes?: bigint;
  onRank?: (done: number, total: number) => void;
}

export interface ExportRepair extends DiagnosticSummary {
  code: RepairCode;
  /** What the repair does and why ASTRA-sim needs it. */
  what: string;
}

/** What `export astra-sim` wrote (`--json`, and export.json in the folder). */
export interface AstraSimExport {
  kind: 'astra-sim-export';
  schemaVersion: 1;
  trace: string;
  out: string;
  ranks: number;
  nodes: number;
  /** Prefix to pass as ASTRA-sim's --workload-configuration. */
  workload: string;
  files: ExportedFiles & { export: string };
  /** Nodes (or files) repaired, by code; empty when every rank file was copied unchanged. */
  repairs: ExportRepair[];
  /** Rank files written byte-identical to their input (after decompression of .gz inputs). */
  unchangedRanks: number;
  /** Odd but usable input met on the way (reading the traces and configs), counted. */
  diagnostics: DiagnosticSummary[];
  /** What was assumed (e.g. that no power.json was found, so `energy` uses the default preset). */
  notes: string[];
  /**
   * Command lines: ASTRA-sim's two analytical backends, and tracewatt's energy from the congestion-unaware run's log.
   */
  commands: { congestionUnaware: string; congestionAware: string; energy: string };
  /**
   * SHA-256 (hex) of what ASTRA-sim reads: the rank files (as a trace digest), system, network, memory, comm groups.
   */
  fingerprint: ExportFingerprint;
}

const DEFAULT_METADATA: GlobalMetadata = { version: '0.0.4', attrs: [] };
const NO_MEMORY = '{\n  "memory-type": "NO_MEMORY_EXPANSION"\n}\n';
const RANK_NAME = /^(.*)\.\d+\.et(\.gz)?$/;
/** Files of an export that only some exports write: an earlier export's copy goes when this one has none. */
const OPTIONAL_FILES = ['comm-group.json', 'power.json'];

/** The trace's name: <name> of <name>.<rank>.et, or of a single <name>.et. */
function traceName(file: string): string {
  const base = path.basename(file);
  return RANK_NAME.exec(base)?.[1] ?? base.replace(/\.et(\.gz)?$/, '');
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() ?? false;
}

/**
 * The system and network files: as given, or beside the trace as `generate llm` writes them; the power config: as
 * given (a preset name stands for its file), else beside the trace as annotate writes it, else none.
 */
async function configPaths(
  input: ExportInput,
  first: RankFile,
): Promise<{ system: string; network: string; power: string | null }> {
  const prefix = path.join(path.dirname(first.file), traceName(first.file));
  const pick = async (given: string | undefined, suffix: string, flag: string) => {
    if (given) return given;
    const beside = `${prefix}.${suffix}`;
    if (await exists(beside)) return beside;
    throw new InputError(`export astra-sim: give ${flag} (no ${beside} beside the trace)`);
  };
  const beside = `${prefix}.power.json`;
  const power =
    input.power === undefined
      ? (await exists(beside))
        ? beside
        : null
      : (POWER_PRESETS as readonly string[]).includes(input.power)
        ? presetPath(input.power)
        : input.power;
  return {
    system: await pick(input.system, 'system.json', '--system'),
    network: await pick(input.network, 'network.yml', '--network'),
    power,
  };
}

/** Pass 1: the rank's ids; duplicates and cycles are refused (ASTRA-sim cannot run them, replay neither). */
async function rankGraph(file: string, diagnostics: Diagnostics): Promise<DependencyGraph> {
  const graph = new DependencyGraph();
  const reader = await openTrace(file, { diagnostics });
  for await (const batch of reader.batches()) {
    for (const n of batch)
      graph.add(
        n.id,
        n.dataDeps.filter((d) => d !== n.id),
        n.ctrlDeps.filter((d) => d !== n.id),
      );
  }
  const facts = graph.facts();
  if (facts.duplicateCount > 0) {
    throw new InputError(
      `${file}: node id ${facts.duplicateIds[0]} appears more than once (${facts.duplicateCount} repeated ` +
        `id(s)); ASTRA-sim cannot tell the nodes apart`,
    );
  }
  if (facts.nodesInCycles > 0) {
    throw new InputError(
      `${file}: ${facts.nodesInCycles} node(s) can never run: dependency cycle ${facts.cycleSample.join(' → ')}` +
        ` → ${facts.cycleSample[0]}`,
    );
  }
  return graph;
}

/** GPU compute nodes of the trace, annotated (frequency_mhz or energy_j) or not. */
interface GpuNodeCounts {
  annotated: number;
  unannotated: number;
}

function countGpuNode(n: ChakraNode, counts: GpuNodeCounts): void {
  if (n.type !== NodeType.COMP_NODE || (attrBool(n, 'is_cpu_op') ?? false)) return;
  if (
    attrNumber(n, ANNOTATION_ATTRS.frequencyMHz) !== undefined ||
    attrNumber(n, ANNOTATION_ATTRS.energyJ) !== undefined
  )
    counts.annotated++;
  else counts.unannotated++;
}

/**
 * The system.json to write: as given, or, for an annotated trace under roofline-enabled, the same with
 * roofline-enabled 0 (ASTRA-sim would recompute every compute node's time from num_ops at its one peak and drop the
 * annotated durations that replay honours), with a note saying so.
 */
function systemText(text: string, system: SystemConfig, counts: GpuNodeCounts, file: string, notes: string[]): string {
  if (!system.rooflineEnabled || counts.annotated === 0) return text;
  const o = JSON.parse(text) as Record<string, unknown>;
  o['roofline-enabled'] = 0;
  notes.push(
    `${counts.annotated} GPU compute node(s) carry annotated durations (frequency_mhz / energy_j): system.json ` +
      `is ${file} with ` +
      'roofline-enabled 0, so ASTRA-sim runs their annotated durations as replay does (with roofline on it ' +
      'would recompute them from num_ops)' +
      (counts.unannotated > 0
        ? `; the ${counts.unannotated} unannotated GPU compute node(s) then take their duration_micros in both`
        : ''),
  );
  return `${JSON.stringify(o, null, 2)}\n`;
}

/** Pass 2: repairs and writes one rank; returns its node count and whether anything changed. */
async function writeRank(
  rf: RankFile,
  outFile: string,
  ctx: Omit<RepairContext, 'file' | 'rank' | 'hasNode'>,
  diagnostics: Diagnostics,
  set: OutputSet,
  gpu: GpuNodeCounts,
  cross: CrossRankCheck,
): Promise<{ nodes: number; changed: boolean }> {
  const graph = await rankGraph(rf.file, diagnostics);
  const reader = await openTrace(rf.file);
  const before = ctx.repairs.summary().reduce((a, d) => a + d.count, 0);
  if (!reader.metadata) {
    ctx.repairs.add('metadata-added', {
      file: rf.file,
      message:
        `${rf.file}: no GlobalMetadata frame; one (version ${DEFAULT_METADATA.version}) added before the first ` +
        `node`,
    });
  }
  const c: RepairContext = { ...ctx, file: rf.file, rank: rf.rank, hasNode: (id) => graph.has(id) };
  let writer: TraceWriter;
  try {
    writer = await TraceWriter.create(outFile, reader.metadata ?? DEFAULT_METADATA, { gzip: false, set });
  } catch (e) {
    throw outputError(outFile, e);
  }
  let nodes = 0;
  try {
    for await (const batch of reader.batches()) {
      for (const n of batch) {
        repairNode(c, n);
        crossRank(cross, rf.rank, n, ctx.ranks);
        countGpuNode(n, gpu);
        nodes++;
        const p = writer.write(n);
        if (p) await p;
      }
    }
  } catch (e) {
    await writer.abort();
    throw outputError(outFile, e);
  }
  await writer.close().catch((e: unknown) => {
    throw outputError(outFile, e);
  });
  const after = ctx.repairs.summary().reduce((a, d) => a + d.count, 0);
  return { nodes, changed: after !== before };
}

/** What replay matches across ranks, of a node as written (collective-sequence.ts; sizes checked by the repairs). */
function crossRank(cross: CrossRankCheck, rank: number, n: ChakraNode, ranks: number): void {
  if (n.type === NodeType.COMM_COLL_NODE) {
    const type = attrInt(n, 'comm_type');
    const size = attrInt(n, 'comm_size');
    if (type !== undefined && size !== undefined && !nodeValueProblem('comm_size', size))
      cross.collective(rank, n.id, type, size, attrString(n, 'pg_name'), attrBoolList(n, 'involved_dim'));
  } else if (n.type === NodeType.COMM_SEND_NODE || n.type === NodeType.COMM_RECV_NODE) {
    const send = n.type === NodeType.COMM_SEND_NODE;
    const peer = attrInt(n, send ? 'comm_dst' : 'comm_src');
    if (peer !== undefined && peer >= 0n && peer < BigInt(ranks))
      cross.message(send, rank, n.id, Number(peer), attrInt(n, 'comm_tag') ?? 0n);
  }
}

export async function exportAstraSim(input: ExportInput): Promise<AstraSimExport> {
  const rankFiles = await resolveRankFiles(input.trace);
  const paths = await configPaths(input, rankFiles[0]);
  const texts = {
    system: await readTextFile(paths.system),
    network: await readTextFile(paths.network),
    power: paths.power ? await readTextFile(paths.power) : null,
  };
  // Parsed to refuse what ASTRA-sim or replay would not run; written as given.
  const diagnostics = new Diagnostics();
  const system = await loadSystemConfig(paths.system, diagnostics);
  const network = await loadNetworkConfig(paths.network);
  checkSystemAgainstNetwork(system, network, diagnostics);
  const npus = network.dims.reduce((a, d) => a * d.npus, 1);
  if (rankFiles.length !== npus) {
    // The words replay uses (engine.ts), so that both commands give a trace and network one verdict.
    throw new InputError(
      `the trace has ${rankFiles.length} rank file(s) but ${network.file} describes ${npus} NPUs (npus_count [` +
        `${network.dims.map((d) => d.npus).join(', ')}]): give one <prefix>.<rank>.et per NPU`,
    );
  }
  const gap = missingRankProblem(input.trace, rankFiles);
  if (gap) throw new InputError(gap);
  const memory: RemoteMemoryConfig | undefined = input.memory ? await loadRemoteMemoryConfig(input.memory) : undefined;
  const commGroups: CommGroupConfig | undefined = input.commGroup
    ? await loadCommGroupConfig(input.commGroup, npus)
    : undefined;
  const power = paths.power ? await resolvePower(paths.power) : null;
  if (power && power.network.length < network.dims.length) {
    // As replay (and energy on ASTRA-sim's log) refuses it.
    throw new InputError(
      `${power.file}: network: has ${power.network.length} entries but ${network.file} has ` +
        `${network.dims.length} dimensions: give one energyPjPerBit per dimension`,
    );
  }
  const notes = paths.power
    ? []
    : [
        `no power config given and none beside the trace (` +
          `${path.join(path.dirname(rankFiles[0].file), traceName(rankFiles[0].file))}.power.json): the energy ` +
          `command uses the ${DEFAULT_POWER_PRESET} preset; export with --power to use the annotated GPU's`,
      ];

  const name = traceName(rankFiles[0].file);
  const out = input.out;
  const files: ExportedFiles = {
    workload: path.join(out, 'workload', name),
    system: path.join(out, 'system.json'),
    network: path.join(out, 'network.yml'),
    memory: path.join(out, 'memory.json'),
    commGroup: commGroups ? path.join(out, 'comm-group.json') : undefined,
    power: paths.power ? path.join(out, 'power.json') : undefined,
    runScript: path.join(out, 'run.sh'),
  };
  const repairs = new Diagnostics(5);
  // Every file goes into place together once all are written; a failure leaves the folder as it was (and removes
  // the folders this export made).
  return OutputSet.write(
    out,
    async (set) => {
      set.supersede(path.dirname(files.workload), (n) => RANK_NAME.test(n));
      set.supersede(out, (n) => OPTIONAL_FILES.includes(n));
      let nodes = 0;
      let unchangedRanks = 0;
      const context = {
        ranks: rankFiles.length,
        dims: network.dims.length,
        system,
        memory,
        commGroups,
        commSizeBytes: input.commSizeBytes,
        repairs,
      };
      const gpu: GpuNodeCounts = { annotated: 0, unannotated: 0 };
      const cross = new CrossRankCheck(rankFiles.map((rf) => rf.rank));
      for (const rf of rankFiles) {
        const r = await writeRank(rf, `${files.workload}.${rf.rank}.et`, context, diagnostics, set, gpu, cross);
        nodes += r.nodes;
        if (!r.changed) unchangedRanks++;
        input.onRank?.(rf.rank + 1, rankFiles.length);
      }
      // Communication that does not match across ranks: replay refuses it and ASTRA-sim stalls (validate says so too).
      const mismatch = cross.problems()[0];
      if (mismatch) throw new InputError(mismatch.found.message);
      const starts = measuredStartOffsets(await measuredIterations(input.trace));
      if (starts && starts.some((t) => t > 0)) {
        notes.push(
          `the trace records when each rank began its measured iteration (an imported run; up to ` +
            `${(Math.max(...starts) / 1e6).toFixed(3)} ms apart): ` +
            'tracewatt replay starts each rank then and counts its finish from there; ASTRA-sim starts every ' +
            "rank at 0, so its times differ from replay's (energy --astra-sim-log takes ASTRA-sim's)",
        );
      }
      const put = (file: string, text: string) => set.put(file, text);
      const systemOut = systemText(texts.system, system, gpu, paths.system, notes);
      const memoryText = input.memory ? await readTextFile(input.memory) : NO_MEMORY;
      const commGroupText = files.commGroup ? await readTextFile(input.commGroup!) : null;
      const fingerprint: ExportFingerprint = {
        workload: await rankFilesDigest(
          rankFiles.map((rf) => ({ rank: rf.rank, file: set.file(`${files.workload}.${rf.rank}.et`) })),
        ),
        system: textDigest(systemOut),
        network: textDigest(texts.network),
        memory: textDigest(memoryText),
        ...(commGroupText === null ? {} : { 'comm-group': textDigest(commGroupText) }),
      };
      await put(files.system, systemOut);
      await put(files.network, texts.network);
      await put(files.memory, memoryText);
      if (files.commGroup) await put(files.commGroup, commGroupText!);
      if (files.power) await put(files.power, texts.power!);
      await put(files.runScript, runScript(files, fingerprint));
      await chmod(set.file(files.runScript), 0o755);
      const result: AstraSimExport = {
        kind: 'astra-sim-export',
        schemaVersion: 1,
        trace: input.trace,
        out,
        ranks: rankFiles.length,
        nodes,
        workload: files.workload,
        files: { ...files, export: path.join(out, 'export.json') },
        repairs: repairs
          .summary()
          .map((d) => ({ ...d, code: d.code as RepairCode, what: REPAIRS[d.code as RepairCode] })),
        unchangedRanks,
        diagnostics: diagnostics.summary(),
        notes,
        commands: {
          congestionUnaware: astraSimCommand(files, 'unaware'),
          congestionAware: astraSimCommand(files, 'aware'),
          energy: energyCommandLine(files, 'unaware'),
        },
        fingerprint,
      };
      await put(result.files.export, `${toJson(result)}\n`);
      return result;
    },
    { folder: true },
  );
}
