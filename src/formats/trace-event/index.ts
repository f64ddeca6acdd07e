export { TraceEventWriter, exactSlice } from './writer.js';
