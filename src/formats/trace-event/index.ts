export { TraceEventWriter, type CompleteEvent, type CounterEvent } from './writer.js';
