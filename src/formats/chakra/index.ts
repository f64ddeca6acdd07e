export * from './schema.js';
export * from './types.js';
export * from './attrs.js';
export {
  openTrace,
  openTraceBytes,
  openTraceSource,
  readTraceFile,
  readTraceMetadata,
  decodeTraceBuffer,
  MAX_FRAME_BYTES,
  type TraceReader,
  type ReadOptions,
} from './reader.js';
export { TraceWriter, writeTraceFile } from './writer.js';
export { encodeTrace, ByteSink, encodeNodeFrame, encodeMetadataFrame } from './encode.js';
export { isRankFileOf, missingRankProblem, resolveRankFiles, type RankFile } from './paths.js';
export {
  durationProblem,
  durationRead,
  EMPTY_ALL_GATHER,
  nodeValueProblem,
  NODE_VALUE_LIMITS,
  MAX_DURATION_MICROS,
  simulatedCollective,
  valuesReadBy,
} from './node-values.js';
export { FrameScanner, type FrameScannerOptions } from './frames.js';
export { FrameStream, readFrames, type FrameStreamOptions } from './frame-stream.js';
export { NodeProbe, AttributeNames, U64List } from './probe.js';
export { DenseIdMap } from './dense-id-map.js';
export { SpliceSink, FrameEdit } from './splice.js';
export { WireCursor, WireError } from './cursor.js';
