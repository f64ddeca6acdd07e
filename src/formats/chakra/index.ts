export * from './schema.js';
export * from './types.js';
export * from './attrs.js';
export { openTrace, openTraceBytes, openTraceSource, readTraceFile, decodeTraceBuffer, MAX_FRAME_BYTES, type TraceReader, type ReadOptions } from './reader.js';
export { TraceWriter, writeTraceFile } from './writer.js';
export { encodeTrace, ByteSink, encodeNodeFrame, encodeMetadataFrame } from './encode.js';
export { resolveRankFiles, type RankFile } from './paths.js';
