// Trace generators shared by the benchmarks (built code: run after `npm run build`).
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', '..', 'dist', 'formats', 'chakra', 'index.js');
/** The real PyTorch trace shipped in traces/ (schema 1.0.1, 3,664 nodes of about 800 B). */
export const PYTORCH_TRACE = path.join(here, '..', '..', 'traces', 'chakra-tests', 'feeder_tests_chakra.0.et');

function attr(name, kind, value) {
  return { name, docString: '', kind, value };
}

/** A PyTorch-like node with a unique id: 85% GPU kernels, 10% CPU ops, 5% collectives, IOInfo and host attributes. */
export function pytorchLikeNode(i) {
  const id = BigInt(i);
  const r = i % 20;
  if (r === 19) {
    return {
      id,
      name: `nccl:all_reduce_${i}`,
      type: 7,
      ctrlDeps: [],
      dataDeps: [id - 1n],
      startTimeMicros: BigInt(i * 10),
      durationMicros: 120n,
      inputs: null,
      outputs: null,
      attrs: [
        attr('comm_type', 'int64_val', 0n),
        attr('comm_size', 'int64_val', BigInt(1 << 22)),
        attr('involved_dim', 'bool_list', [true, true]),
        attr('pg_name', 'string_val', '0'),
        attr('is_cpu_op', 'bool_val', false),
      ],
    };
  }
  const cpu = r >= 17;
  const deps = i > 4 ? [id - 1n, id - 2n, id - 4n] : [];
  return {
    id,
    name: cpu
      ? `aten::linear_${i % 97}`
      : `void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)`,
    type: 4,
    ctrlDeps: i > 8 ? [id - 8n] : [],
    dataDeps: deps,
    startTimeMicros: BigInt(1_700_000_000_000 + i * 10),
    durationMicros: BigInt(5 + (i % 300)),
    inputs: {
      values: `[[${i}, ${i + 1}, 0, 53120, 4, 'cuda:0'], [${i + 2}, ${i + 3}, 0, 4096, 4, 'cuda:0']]`,
      shapes: '[[4096, 13], [4096]]',
      types: "['Tensor(float)', 'Tensor(float)']",
    },
    outputs: {
      values: `[[${i + 4}, ${i + 5}, 0, 53120, 4, 'cuda:0']]`,
      shapes: '[[4096, 13]]',
      types: "['Tensor(float)']",
    },
    attrs: [
      attr('rf_id', 'int64_val', BigInt(i)),
      attr('fw_parent', 'int64_val', BigInt(i - 1)),
      attr('seq_id', 'int64_val', BigInt(i >> 2)),
      attr('scope', 'int64_val', 0n),
      attr('tid', 'int64_val', 1n),
      attr('fw_tid', 'int64_val', 0n),
      attr(
        'op_schema',
        'string_val',
        cpu ? 'aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor' : '',
      ),
      attr('is_cpu_op', 'bool_val', cpu),
      attr('num_ops', 'int64_val', BigInt(53120 * (1 + (i % 7)))),
      attr('tensor_size', 'uint64_val', BigInt(4 * 53120 * 3)),
    ],
  };
}

/** Writes PyTorch-like nodes with unique ids until the file holds targetBytes; returns nodes and seconds. */
export async function writePytorchLike(file, targetBytes) {
  const { TraceWriter } = await import(dist);
  const md = { version: '0.0.4', attrs: [attr('schema', 'string_val', '1.0.2-chakra.0.0.4')] };
  const w = await TraceWriter.create(file, md);
  let i = 0;
  const t0 = performance.now();
  // Slices of 20,000 nodes, the file size checked after each.
  while (w.bytesWritten < targetBytes) {
    for (let k = 0; k < 20000; k++) {
      const p = w.write(pytorchLikeNode(i++));
      if (p) await p;
    }
  }
  const r = await w.close();
  return { nodes: r.nodes, seconds: (performance.now() - t0) / 1000 };
}

/** Writes `source`'s metadata frame, then its node frames over and over until targetBytes: every id repeats. */
export function writeRepeated(file, targetBytes, source = PYTORCH_TRACE) {
  const buf = readFileSync(source);
  let p = 0;
  let len = 0;
  let mul = 1;
  let b;
  do {
    b = buf[p++];
    len += (b & 0x7f) * mul;
    mul *= 128;
  } while (b >= 0x80);
  const metadataEnd = p + len;
  const fd = openSync(file, 'w');
  let written = writeSync(fd, buf.subarray(0, metadataEnd));
  let copies = 0;
  while (written < targetBytes) {
    written += writeSync(fd, buf.subarray(metadataEnd));
    copies++;
  }
  closeSync(fd);
  return { bytes: written, copies };
}

/**
 * Writes `ranks` rank files of `perRank` small nodes under `prefix` (<prefix>.<rank>.et): GPU kernels named as the
 * RTX 8000 real kernels of NV-DVFS-Benchmark (exactly, bare, demangled and mangled), unprofiled kernels with num_ops /
 * tensor_size (roofline), host-side ops and all-reduces; ids unique across ranks.
 */
export async function writeSmallRanks(prefix, ranks, perRank) {
  const { emptyNode, makeAttr, NodeType, TraceWriter } = await import(dist);
  const kernels = [
    'BlackScholesGPU',
    'matrixMulCUDA',
    'vectorAdd',
    'reduce2_float',
    'histogram256Kernel',
    'transposeCoalesced',
    'calculate_temp',
    'Fan2',
  ];
  const spellings = kernels.flatMap((k) => [k, `void ${k}(float*, float const*, int)`, `_Z${k.length}${k}PfPKfi`]);
  spellings.push('BlackScholes/BlackScholesGPU/input000');
  for (let r = 0; r < ranks; r++) {
    const w = await TraceWriter.create(`${prefix}.${r}.et`, {
      version: '',
      attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')],
    });
    for (let i = 0; i < perRank; i++) {
      const id = BigInt(r * perRank + i);
      const k = i % 20;
      let n;
      if (k === 19) {
        n = emptyNode(id, `allreduce_${i}`, NodeType.COMM_COLL_NODE);
        n.attrs = [
          makeAttr('is_cpu_op', 'bool_val', false),
          makeAttr('comm_type', 'int64_val', 0),
          makeAttr('comm_size', 'int64_val', 1 << 20),
        ];
      } else if (k === 18) {
        n = emptyNode(id, `aten::add_(${i})`, NodeType.COMP_NODE);
        n.durationMicros = 5n;
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', true)];
      } else if (k >= 15) {
        n = emptyNode(id, `unprofiled_gemm_${k}`, NodeType.COMP_NODE);
        n.durationMicros = 40n;
        n.attrs = [
          makeAttr('is_cpu_op', 'bool_val', false),
          makeAttr('num_ops', 'int64_val', 1_000_000 * (k + (i % 7))),
          makeAttr('tensor_size', 'uint64_val', 65536),
        ];
      } else {
        n = emptyNode(id, spellings[(i * 7 + r) % spellings.length], NodeType.COMP_NODE);
        n.durationMicros = 20n;
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
      }
      if (i > 0) n.dataDeps = [id - 1n];
      const p = w.write(n);
      if (p) await p;
    }
    await w.close();
  }
  return prefix;
}
