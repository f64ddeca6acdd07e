/** `tracewatt generate llm`: writes Chakra traces of one LLM training iteration plus ASTRA-sim configs. */
import { resolveGpu, type Dtype } from '../../engines/generate/gpus.js';
import { modelPresetNames } from '../../engines/generate/models.js';
import { generateLlm, type PipelineSchedule, type Recompute, TRACE_SCOPES } from '../../engines/generate/index.js';
import { generateLlmJson, generateLlmRows, generateLlmText } from '../../report/text/generate-llm.js';
import { defineCommand } from '../command.js';
import { emit, tableLayout, tableOptions } from '../io.js';

const DTYPES = ['bf16', 'fp16', 'fp32'] as const satisfies readonly Dtype[];

export const generateLlmCommand = defineCommand({
  name: 'generate llm',
  summary: 'Generate Chakra traces of one LLM training iteration (data, tensor and pipeline parallelism)',
  args: [],
  options: [
    {
      name: 'model',
      type: 'string',
      value: 'name|file',
      description: `model preset (${modelPresetNames().join(', ')}) or a JSON model file`,
      required: true,
    },
    { name: 'dp', type: 'int', value: 'n', description: 'data-parallel degree', default: 1 },
    { name: 'tp', type: 'int', value: 'n', description: 'tensor-parallel degree (network dimension 0)', default: 1 },
    { name: 'pp', type: 'int', value: 'n', description: 'pipeline-parallel stages', default: 1 },
    { name: 'micro-batch', type: 'int', value: 'n', description: 'sequences per micro-batch', default: 1 },
    {
      name: 'global-batch',
      type: 'int',
      value: 'n',
      description: 'sequences per iteration over all data-parallel replicas',
      required: true,
    },
    { name: 'seq', type: 'int', value: 'tokens', description: 'sequence length', required: true },
    {
      name: 'schedule',
      type: 'choice',
      choices: ['1f1b', 'gpipe'] satisfies PipelineSchedule[],
      value: '1f1b|gpipe',
      description: 'pipeline schedule',
      default: '1f1b',
    },
    {
      name: 'scope',
      type: 'choice',
      choices: TRACE_SCOPES,
      value: 'iteration|layer-forward',
      description:
        'a training iteration, or the forward pass of one decoder layer per micro-batch (a layer looped on its own)',
      default: 'iteration',
    },
    {
      name: 'sequence-parallel',
      type: 'boolean',
      description: 'Megatron sequence parallelism (reduce-scatter/all-gather instead of all-reduce)',
    },
    {
      name: 'recompute',
      type: 'choice',
      choices: ['none', 'full'] satisfies Recompute[],
      value: 'none|full',
      description: 'activation recomputation',
      default: 'none',
    },
    {
      name: 'dtype',
      type: 'choice',
      choices: DTYPES,
      value: 'bf16|fp16|fp32',
      description: 'training data type',
      default: 'bf16',
    },
    {
      name: 'grad-reduce-dtype',
      type: 'choice',
      choices: DTYPES,
      value: 'bf16|fp16|fp32',
      description: 'gradient accumulation and data-parallel reduction type',
      default: 'fp32',
    },
    {
      name: 'dp-bucket-mb',
      type: 'number',
      positive: true,
      unit: 'MB',
      value: 'MB',
      description: "data-parallel all-reduce bucket size in MB (default: Megatron's max(40M, 1M·dp) parameters)",
    },
    {
      name: 'gpu',
      type: 'string',
      value: 'h100|a100|v100',
      description: 'GPU preset for roofline durations and network bandwidths',
      default: 'h100',
    },
    {
      name: 'calibration',
      type: 'string',
      value: 'file',
      requires: 'frequency',
      description: "take durations from this calibration's time model instead of the GPU preset's roofline",
    },
    {
      name: 'frequency',
      type: 'number',
      positive: true,
      unit: 'MHz',
      value: 'MHz',
      requires: 'calibration',
      description: 'SM clock for --calibration durations',
    },
    {
      name: 'out',
      type: 'string',
      value: 'prefix',
      description: 'writes <prefix>.<rank>.et, <prefix>.network.yml, <prefix>.system.json',
      required: true,
    },
    ...tableOptions('one row per pipeline stage'),
  ],
  example: 'tracewatt generate llm --model llama2-70b --tp 8 --pp 4 --global-batch 32 --seq 4096 --out out/llama70b',
  async run(_args, opts, io) {
    const r = await generateLlm({
      model: opts.model,
      dp: opts.dp,
      tp: opts.tp,
      pp: opts.pp,
      microBatch: opts.microBatch,
      globalBatch: opts.globalBatch,
      seqLen: opts.seq,
      schedule: opts.schedule,
      scope: opts.scope,
      sequenceParallel: opts.sequenceParallel,
      recompute: opts.recompute,
      dtype: opts.dtype,
      calibration:
        opts.calibration === undefined || opts.frequency === undefined
          ? undefined
          : { file: opts.calibration, clockMHz: opts.frequency },
      gradReduceDtype: opts.gradReduceDtype,
      dpBucketBytes: opts.dpBucketMb === undefined ? undefined : opts.dpBucketMb * 1e6,
      gpu: resolveGpu(opts.gpu),
      outPrefix: opts.out,
    });
    emit(io, opts, generateLlmJson(r), {
      table: () => generateLlmRows(r),
      text: () => generateLlmText(r, tableLayout(opts)),
    });
    return 0;
  },
});
