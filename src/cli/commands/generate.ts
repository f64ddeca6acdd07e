/** `tracewatt generate llm`: writes Chakra traces of one LLM training iteration plus ASTRA-sim configs. */
import { toJson } from '../../formats/json.js';
import { parseDtype, resolveGpu } from '../../engines/generate/gpus.js';
import { modelPresetNames, resolveModel } from '../../engines/generate/models.js';
import { loadCalibration } from '../../engines/calibrate/index.js';
import {
  calibratedTimeModel,
  TRACE_SCOPES,
  writeLlmTraces,
  type PipelineSchedule,
  type Recompute,
  type TraceScope,
} from '../../engines/generate/index.js';
import { InputError } from '../../errors.js';
import { outputErrorUnder } from '../../formats/output.js';
import { fixed, wrapText } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { choice, intOf, num, rowsText, tableLayout, tableOptions } from '../io.js';

export const generateLlmCommand: CommandSpec = {
  name: 'generate llm',
  summary: 'Generate Chakra traces of one LLM training iteration (data, tensor and pipeline parallelism)',
  args: [],
  options: [
    {
      name: 'model',
      value: 'name|file',
      description: `model preset (${modelPresetNames().join(', ')}) or a JSON model file`,
      required: true,
    },
    { name: 'dp', value: 'n', description: 'data-parallel degree', default: 1 },
    { name: 'tp', value: 'n', description: 'tensor-parallel degree (network dimension 0)', default: 1 },
    { name: 'pp', value: 'n', description: 'pipeline-parallel stages', default: 1 },
    { name: 'micro-batch', value: 'n', description: 'sequences per micro-batch', default: 1 },
    {
      name: 'global-batch',
      value: 'n',
      description: 'sequences per iteration over all data-parallel replicas',
      required: true,
    },
    { name: 'seq', value: 'tokens', description: 'sequence length', required: true },
    { name: 'schedule', value: '1f1b|gpipe', description: 'pipeline schedule', default: '1f1b' },
    {
      name: 'scope',
      value: 'iteration|layer-forward',
      description:
        'a training iteration, or the forward pass of one decoder layer per micro-batch (a layer looped on its own)',
      default: 'iteration',
    },
    {
      name: 'sequence-parallel',
      description: 'Megatron sequence parallelism (reduce-scatter/all-gather instead of all-reduce)',
    },
    { name: 'recompute', value: 'none|full', description: 'activation recomputation', default: 'none' },
    { name: 'dtype', value: 'bf16|fp16|fp32', description: 'training data type', default: 'bf16' },
    {
      name: 'grad-reduce-dtype',
      value: 'bf16|fp16|fp32',
      description: 'gradient accumulation and data-parallel reduction type',
      default: 'fp32',
    },
    {
      name: 'dp-bucket-mb',
      value: 'MB',
      description: "data-parallel all-reduce bucket size in MB (default: Megatron's max(40M, 1M·dp) parameters)",
    },
    {
      name: 'gpu',
      value: 'h100|a100|v100',
      description: 'GPU preset for roofline durations and network bandwidths',
      default: 'h100',
    },
    {
      name: 'calibration',
      value: 'file',
      description:
        "take durations from this calibration's time model instead of the GPU preset's roofline (needs --frequency)",
    },
    { name: 'frequency', value: 'MHz', description: 'SM clock for --calibration durations' },
    {
      name: 'out',
      value: 'prefix',
      description: 'writes <prefix>.<rank>.et, <prefix>.network.yml, <prefix>.system.json',
      required: true,
    },
    ...tableOptions('one row per pipeline stage'),
  ],
  example: 'tracewatt generate llm --model llama2-70b --tp 8 --pp 4 --global-batch 32 --seq 4096 --out out/llama70b',
  async run(_args, opts, io) {
    const model = await resolveModel(String(opts.model));
    const bucketMb = num(opts, 'dpBucketMb', { positive: true, unit: 'MB' });
    const out = String(opts.out);
    const clockMHz = num(opts, 'frequency', { positive: true, unit: 'MHz' });
    if ((opts.calibration === undefined) !== (clockMHz === undefined)) {
      throw new InputError(
        '--calibration and --frequency go together: durations from a calibration are taken at one SM clock',
      );
    }
    const dtype = parseDtype(String(opts.dtype));
    const timeModel =
      opts.calibration === undefined
        ? undefined
        : calibratedTimeModel(await loadCalibration(String(opts.calibration)), clockMHz!, dtype);
    const input = {
      model,
      dp: intOf(opts, 'dp'),
      tp: intOf(opts, 'tp'),
      pp: intOf(opts, 'pp'),
      microBatch: intOf(opts, 'microBatch'),
      globalBatch: intOf(opts, 'globalBatch'),
      seqLen: intOf(opts, 'seq'),
      schedule: choice<PipelineSchedule>(opts, 'schedule', ['1f1b', 'gpipe']),
      scope: choice<TraceScope>(opts, 'scope', TRACE_SCOPES),
      sequenceParallel: Boolean(opts.sequenceParallel),
      recompute: choice<Recompute>(opts, 'recompute', ['none', 'full']),
      dtype,
      timeModel,
      gradReduceDtype: parseDtype(String(opts.gradReduceDtype)),
      dpBucketBytes: bucketMb === undefined ? undefined : bucketMb * 1e6,
      gpu: resolveGpu(String(opts.gpu)),
      outPrefix: out,
    };
    const r = await writeLlmTraces(input).catch((e: unknown) => {
      throw outputErrorUnder(out, e);
    });
    if (opts.json) {
      io.out(
        `${toJson({
          ranks: r.ranks,
          microBatches: r.plan.microBatches,
          nodes: r.nodes,
          bytes: r.bytes,
          flopsPerIteration: r.flopsPerIteration,
          traceFiles: r.traceFiles,
          networkFile: r.networkFile,
          systemFile: r.systemFile,
          stages: r.stages,
        })}\n`,
      );
      return 0;
    }
    const p = r.plan;
    const stages = rowsText(
      opts,
      [
        { header: 'stage' },
        { header: 'layers' },
        { header: 'nodes per rank' },
        { header: 'work per rank (TFLOP)', format: fixed(1) },
        { header: 'compute time per rank (ms, est.)', format: fixed(1) },
      ],
      r.stages.map((s) => [s.stage, s.layers, s.nodesPerRank, s.flopsPerRank / 1e12, s.computeMicrosPerRank / 1e3]),
    );
    if (opts.csv) {
      io.out(stages);
      return 0;
    }
    const width = tableLayout(opts).width;
    io.out(
      `${wrapText(`${p.model.name}: dp ${p.dp} × tp ${p.tp} × pp ${p.pp} = ${r.ranks} ranks, ${p.microBatches} micro-batches (${p.schedule}), ${p.dtype} on ${p.gpu.name}`, width)}\n`,
    );
    io.out(stages);
    io.out(
      `${wrapText(`iteration: ${(r.flopsPerIteration / 1e15).toFixed(2)} PFLOP; durations (estimated): ${p.timeModel.label}; ${r.nodes} nodes, ${(r.bytes / 1e6).toFixed(1)} MB`, width)}\n`,
    );
    io.out(`wrote ${r.traceFiles.first} … ${r.traceFiles.last}, ${r.networkFile}, ${r.systemFile}\n`);
    return 0;
  },
};
