import { describe, expect, it } from 'vitest';
import { baseKernelName, demangleName, normalizeKernelName } from '../../src/engines/annotate/index.js';
import { NodeType, readTraceFile } from '../../src/formats/chakra/index.js';
import { shipped } from '../helpers/traces.js';

describe('kernel name normalisation', () => {
  it('demangles Itanium names to their qualified name', () => {
    expect(demangleName('_Z9vectorAddPKfS0_Pfi')).toBe('vectorAdd');
    expect(
      demangleName(
        '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13AUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEENS_6detail5ArrayIPcLi2EEEEEviT0_T1_',
      ),
    ).toBe('at::native::vectorized_elementwise_kernel');
    expect(demangleName('_ZNSt6vectorIiSaIiEE9push_backERKi')).toBe('std::vector::push_back');
    expect(demangleName('vectorAdd')).toBeNull();
  });

  it('strips return types, templates, argument lists and anonymous namespaces', () => {
    expect(
      normalizeKernelName(
        'void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<float, unsigned int, 1, ' +
          '128, 1>(float*, int)',
      ),
    ).toBe('at::native::CatArrayBatchedCopy_aligned16_contig');
    expect(
      normalizeKernelName(
        'void cask_cudnn_infer::computeOffsetsKernel<false, false>(cask_cudnn_infer::ComputeOffsetsParams)',
      ),
    ).toBe('cask_cudnn_infer::computeOffsetsKernel');
    expect(normalizeKernelName('aten::conv2d(0)')).toBe('aten::conv2d');
    expect(normalizeKernelName('Memcpy DtoD (Device -> Device)')).toBe('Memcpy DtoD');
    expect(normalizeKernelName('cudnn_infer_maxwell_scudnn_128x64_relu_large_nn_v1')).toBe(
      'cudnn_infer_maxwell_scudnn_128x64_relu_large_nn_v1',
    );
    expect(baseKernelName('at::native::vectorized_elementwise_kernel')).toBe('vectorized_elementwise_kernel');
  });

  it('gives the mangled and the demangled spelling of a kernel the same key', () => {
    expect(normalizeKernelName('_Z15BlackScholesGPUP6float2S0_S0_ffi')).toBe(
      normalizeKernelName('void BlackScholesGPU(float2*, float2*, float2*, float, float, int)'),
    );
  });

  it('normalises every GPU kernel name of the real PyTorch trace to a non-empty key without brackets', async () => {
    const t = await readTraceFile(shipped('chakra-tests', 'feeder_tests_chakra.0.et'));
    const names = new Set(t.nodes.filter((n) => n.type === NodeType.COMP_NODE).map((n) => n.name));
    expect(names.size).toBeGreaterThan(50);
    for (const n of names) {
      const k = normalizeKernelName(n);
      expect(k.length, n).toBeGreaterThan(0);
      expect(k, n).not.toMatch(/[()<>{}]/);
      expect(k.startsWith('void '), n).toBe(false);
    }
  });
});
