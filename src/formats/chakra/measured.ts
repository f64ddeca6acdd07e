/**
 * Names of what `import pytorch` / `import kineto` write about the measured run, so that `replay --as-measured`
 * reproduces it and modelled what-ifs keep what a hardware change does not touch. All times are integer ns.
 *
 * Node attributes (int64):
 * - `measured_duration_ns`: how long the node ran. GPU nodes: the Kineto duration. Host ops: the time their thread
 *   spent in the op before its next op on the same chain began (a leaf: its whole duration; an op with children:
 *   the part before its first child), less the time blocked in a CUDA synchronisation call (the dependency on the
 *   awaited GPU node stands for that wait). The rest of a host op's time is in the delays of the nodes that follow.
 * - `measured_delay_ns`: the measured time from the moment the node's last dependency was ready to its start
 *   (interpreter gaps, launch latency, GPU queueing); ≥ 0.
 * - `launch_offset_ns` (GPU nodes with a launching host op, ctrl_deps[0]): from the start of that op to the start
 *   of the launch call. That dependency is ready at launch, not when the op finishes.
 *
 * Replay rule (engines/replay/as-measured.ts): start = max over data and ctrl dependencies of their ready time (0
 * when there are none; ready = finish, or for the launching op its start + launch_offset_ns) + measured_delay_ns;
 * finish = start + measured_duration_ns. Applied to the measured times it gives them back to the ns.
 *
 * Global metadata attributes:
 * - `measured_iteration_ns` (int64): the measured iteration: from the start of the ProfilerStep (or window) to the
 *   later of its end and the end of the last GPU kernel, memcpy or memset that starts inside it.
 * - `measured_step` (string): which span: "ProfilerStep#N", or "window START:END" (µs as the trace writes ts).
 * - `measured_start_unix_ns` (int64, when the trace has wall-clock stamps): the iteration's start, ns since the
 *   Unix epoch, to place a power log on it.
 * - `measured_device` (string): the GPU the rank's kernels ran on, as the profiler names it.
 */
export const MEASURED_NODE_ATTRS = {
  durationNs: 'measured_duration_ns',
  delayNs: 'measured_delay_ns',
  launchOffsetNs: 'launch_offset_ns',
} as const;

export const MEASURED_META_ATTRS = {
  iterationNs: 'measured_iteration_ns',
  step: 'measured_step',
  startUnixNs: 'measured_start_unix_ns',
  device: 'measured_device',
} as const;
