/**
 * The collective an NCCL kernel of a Kineto trace performs, from what PyTorch recorded around its launch: the
 * `record_param_comms` op (Collective name, In msg nelems, dtype, Process Group Name / Ranks, PyTorch 2.2+), the
 * `nccl:<collective>` / `c10d::<collective>` ops (their Input Dims and Input type, when shapes were recorded), the
 * kernel's own args (newer Kineto), and distributedInfo.pg_config for a group's ranks. What none of them records is
 * left null and counted by the caller.
 */
import type { CommArgs, KinetoCpuOp, KinetoGpuEvent, KinetoTrace } from '../../formats/kineto/trace.js';
import { commTypeOf } from './comm.js';

export interface KinetoComm {
  commType: number | null;
  collective: string;
  /** Bytes of the collective's input (as the execution-trace path counts them), or null when not recorded. */
  commSizeBytes: number | null;
  pgName: string | null;
  /** The group's ranks when recorded (record_param_comms or distributedInfo), else null. */
  pgRanks: number[] | null;
  p2p: 'send' | 'recv' | null;
}

/** Bytes per element of the dtype names PyTorch writes (record_param_comms dtype; Input type of ops). */
const DTYPE_BYTES: [RegExp, number][] = [
  [/^(c10::)?(float8|Float8)/i, 1],
  [/^(double|Double|float64|ComplexFloat|c10::complex<float>|long int|long|Long|int64|uint64|UInt64)$/i, 8],
  [/^(float|Float|float32|int|Int|int32|uint32|UInt32|unsigned int)$/i, 4],
  [/^(c10::)?(Half|BFloat16|half|bfloat16|float16|short|Short|int16|uint16)$/i, 2],
  [/^(signed char|unsigned char|char|Char|Byte|bool|Bool|int8|uint8)$/i, 1],
  [/^(ComplexDouble|c10::complex<double>)$/i, 16],
];

export function dtypeBytes(name: string | null): number | null {
  if (!name) return null;
  for (const [re, b] of DTYPE_BYTES) if (re.test(name.trim())) return b;
  return null;
}

/** Σ over tensor inputs of elements × element bytes, from Input Dims / Input type; null if none is a sized tensor. */
function inputBytes(c: CommArgs): number | null {
  if (!c.inputDims || !c.inputTypes) return null;
  let total = 0;
  let any = false;
  c.inputDims.forEach((dims, i) => {
    const b = dtypeBytes(c.inputTypes![i] ?? null);
    if (
      b === null ||
      !Array.isArray(dims) ||
      dims.length === 0 ||
      !dims.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)
    )
      return;
    total += (dims as number[]).reduce((a, d) => a * d, 1) * b;
    any = true;
  });
  return any && Number.isSafeInteger(total) ? total : null;
}

const P2P_SEND = /(^|[^a-z])send(?!recv)/i;
const P2P_RECV = /(^|[^a-z])recv/i;

/**
 * The collective of an NCCL kernel launched under `enclosing` (the launching op and the ops around it, nearest first).
 * An all-to-all over NCCL runs as a SendRecv kernel: the enclosing ops' names decide, the kernel's only when none says.
 */
export function kinetoCommInfo(trace: KinetoTrace, kernel: KinetoGpuEvent, enclosing: KinetoCpuOp[]): KinetoComm {
  let collective = '';
  let size: number | null = null;
  let pgName: string | null = null;
  let pgRanks: number[] | null = null;
  let p2p: KinetoComm['p2p'] = null;
  const take = (c: CommArgs | null) => {
    if (!c) return;
    if (c.collective) collective ||= c.collective;
    if (size === null && c.inNelems !== null && dtypeBytes(c.dtype) !== null) size = c.inNelems * dtypeBytes(c.dtype)!;
    size ??= inputBytes(c);
    pgName ??= c.pgName;
    pgRanks ??= c.pgRanks;
  };
  take(kernel.comm);
  for (const op of enclosing.slice(0, 8)) {
    if (op.name.startsWith('nccl:')) collective ||= op.name.slice(5).replace(/^_+/, '');
    else if (op.name.startsWith('c10d::')) collective ||= op.name.slice(6).replace(/_+$/, '');
    take(op.comm);
    if (/^(nccl:|c10d::)/.test(op.name)) {
      if (P2P_SEND.test(op.name)) p2p ??= 'send';
      else if (P2P_RECV.test(op.name) && !/sendrecv/i.test(op.name)) p2p ??= 'recv';
    }
  }
  if (!collective) collective = kernel.name.replace(/^nccl(Dev)?Kernel_/, '').split(/[_(]/)[0] ?? kernel.name;
  if (pgName !== null && pgRanks === null) {
    const cfg = trace.distributed?.raw.pg_config;
    if (Array.isArray(cfg)) {
      const g = (cfg as Record<string, unknown>[]).find((x) => x && String(x.pg_name) === pgName);
      if (g && Array.isArray(g.ranks) && g.ranks.every((r) => Number.isSafeInteger(r))) pgRanks = g.ranks as number[];
    }
  }
  const commType = p2p ? null : (commTypeOf(collective) ?? commTypeOf(kernel.name));
  return { commType, collective, commSizeBytes: size, pgName, pgRanks, p2p };
}
