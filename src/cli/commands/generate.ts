/** `tracewatt generate llm`: writes Chakra traces of one LLM training iteration plus ASTRA-sim configs. */
import { parseDtype, resolveGpu } from '../../core/llm/gpus.js';
import { modelPresetNames } from '../../core/llm/models.js';
import {
  generateLlm,
  type PipelineSchedule,
  type Recompute,
  TRACE_SCOPES,
  type TraceScope,
} from '../../engines/generate/index.js';
import { InputError } from '../../errors.js';
import { generateLlmJson, generateLlmRows, generateLlmText } from '../../report/text/generate-llm.js';
import type { CommandSpec } from '../command.js';
import { choice, emit, intOf, num, tableLayout, tableOptions } from '../io.js';

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
    const bucketMb = num(opts, 'dpBucketMb', { positive: true, unit: 'MB' });
    const clockMHz = num(opts, 'frequency', { positive: true, unit: 'MHz' });
    if ((opts.calibration === undefined) !== (clockMHz === undefined)) {
      throw new InputError(
        '--calibration and --frequency go together: durations from a calibration are taken at one SM clock',
      );
    }
    const r = await generateLlm({
      model: String(opts.model),
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
      dtype: parseDtype(String(opts.dtype)),
      calibration: opts.calibration === undefined ? undefined : { file: String(opts.calibration), clockMHz: clockMHz! },
      gradReduceDtype: parseDtype(String(opts.gradReduceDtype)),
      dpBucketBytes: bucketMb === undefined ? undefined : bucketMb * 1e6,
      gpu: resolveGpu(String(opts.gpu)),
      outPrefix: String(opts.out),
    });
    emit(io, opts, generateLlmJson(r), {
      table: () => generateLlmRows(r),
      text: () => generateLlmText(r, tableLayout(opts)),
    });
    return 0;
  },
};
