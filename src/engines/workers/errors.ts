/**
 * Errors as they cross between threads. A worker thread's error reaches the main thread through a structured clone,
 * which keeps a built-in error's message but not its class or fields: an InputError would arrive as a plain Error
 * and the CLI would call it an internal error. So the worker sends the class name, message, stack and every field
 * (code, location, file, errno's path …), and the main thread rebuilds an instance of the same class from
 * src/errors.ts, with the same message and fields.
 */
import * as typed from '../../errors.js';

export interface SerializedError {
  /** The class name ('InputError', 'ChakraDecodeError', 'TypeError' …); null: a thrown value that is no Error. */
  className: string | null;
  message: string;
  stack?: string;
  /** Own enumerable fields (name, code, location, file, path …), each one that structured clone can carry. */
  fields: Record<string, unknown>;
  cause?: SerializedError;
  /** The thrown value itself, when it is no Error (a string, a number). */
  value?: unknown;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** Every error class this library throws (src/errors.ts) and the built-in ones, by name. */
const CLASSES = new Map<string, ErrorClass>();
for (const c of [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError])
  CLASSES.set(c.name, c);
for (const [name, c] of Object.entries(typed)) {
  if (typeof c === 'function' && c.prototype instanceof Error) CLASSES.set(name, c as ErrorClass);
}

function cloneable(v: unknown): unknown {
  try {
    return structuredClone(v);
  } catch {
    return String(v);
  }
}

export function serializeError(e: unknown, depth = 0): SerializedError {
  if (!(e instanceof Error)) return { className: null, message: String(e), fields: {}, value: cloneable(e) };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e))
    if (k !== 'message' && k !== 'stack' && k !== 'cause') fields[k] = cloneable(v);
  const s: SerializedError = { className: e.constructor?.name ?? 'Error', message: e.message, stack: e.stack, fields };
  if (e.cause !== undefined && depth < 4) s.cause = serializeError(e.cause, depth + 1);
  return s;
}

/**
 * The error a worker threw, as an instance of its class in this thread (a class this library does not know, such
 * as a module-private one, comes back as an Error keeping its name and fields). The stack is the worker's.
 */
export function rebuildError(s: SerializedError): unknown {
  if (s.className === null) return s.value;
  const cls = CLASSES.get(s.className) ?? Error;
  const e = Object.create(cls.prototype) as Error;
  Object.defineProperty(e, 'message', { value: s.message, writable: true, configurable: true });
  if (s.stack !== undefined) Object.defineProperty(e, 'stack', { value: s.stack, writable: true, configurable: true });
  if (s.cause) Object.defineProperty(e, 'cause', { value: rebuildError(s.cause), writable: true, configurable: true });
  Object.assign(e, s.fields);
  if (!CLASSES.has(s.className) && !('name' in s.fields)) e.name = s.className;
  return e;
}
