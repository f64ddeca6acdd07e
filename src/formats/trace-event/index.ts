export { TraceEventWriter, exactSlice, type CompleteEvent, type CounterEvent } from './writer.js';
