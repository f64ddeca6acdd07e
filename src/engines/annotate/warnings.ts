/**
 * Loud warnings of an annotate run: a run that annotated no node says so, and why (issue 16, 19): no GPU compute
 * node in the trace, no profile and nothing to estimate from, or names that matched nothing in the profile.
 */
import type { AnnotateResult } from './types.js';

type Total = AnnotateResult['total'];

const matchedOf = (t: Pick<Total, 'matched'>) => t.matched.exact + t.matched.normalized + t.matched.base + t.matched.op;

export function annotateWarnings(total: Total, profileKernels: number, profilesGiven: number): string[] {
  const out: string[] = [];
  // Every GPU compute node is annotated or left untouched.
  const annotated = total.gpuCompNodes - total.untouched;
  if (annotated > 0) {
    if (profilesGiven > 0 && matchedOf(total) === 0 && total.gpuCompNodes > 0) {
      out.push(
        `NO NODE MATCHED THE PROFILE: none of the ${total.gpuCompNodes} GPU compute node names is among the ` +
          `${profileKernels} profiled kernel(s); ` +
          `every annotation is a roofline or duration estimate (is the profile of this run? e.g. "` +
          `${total.unmatchedNames[0]?.name.slice(0, 60) ?? ''}")`,
      );
    }
    return out;
  }
  let why: string;
  if (total.gpuCompNodes === 0) {
    why =
      total.compNodes === 0
        ? 'the trace has no compute node'
        : `all ${total.compNodes} compute nodes are host-side ops (is_cpu_op); the trace has no GPU compute node ` +
          `(was it converted with its Kineto trace?)`;
  } else if (profilesGiven === 0) {
    why =
      `no --profile given, and its ${total.gpuCompNodes} GPU compute node(s) have no num_ops/tensor_size for a ` +
      `roofline estimate nor a duration to estimate from`;
  } else {
    why =
      `none of the ${total.gpuCompNodes} GPU compute node names matched the ${profileKernels} profiled ` +
      `kernel(s), and the nodes have no num_ops/tensor_size nor a duration to estimate from` +
      (total.unmatchedNames[0] ? ` (most frequent node: "${total.unmatchedNames[0].name.slice(0, 80)}")` : '');
  }
  out.push(
    `NOTHING ANNOTATED: 0 of ${total.nodes} nodes got an energy: ${why}; the outputs are copies of the input and 0 J`,
  );
  return out;
}
