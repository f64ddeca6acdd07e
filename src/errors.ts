/**
 * Typed errors thrown by the library. The CLI maps them to one readable line and an exit code;
 * library code never prints or exits.
 */
export class TracewattError extends Error {
  /** Stable machine-readable code, e.g. "CHAKRA_DECODE". */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Where in a binary file a problem was found. */
export interface ByteLocation {
  file: string;
  /** Byte offset from the start of the (decompressed) stream. */
  offset: number;
  /** 0-based frame index; frame 0 is GlobalMetadata when the trace has one. */
  frameIndex: number;
}

/** A Chakra trace that cannot be decoded: names file, byte offset and frame, and what was expected. */
export class ChakraDecodeError extends TracewattError {
  readonly location: ByteLocation;
  constructor(location: ByteLocation, problem: string) {
    super('CHAKRA_DECODE', `${location.file}: frame ${location.frameIndex} at byte ${location.offset}: ${problem}`);
    this.location = location;
  }
}

/** Invalid user input that is not a binary decode problem (bad path, bad option, bad config field). */
export class InputError extends TracewattError {
  constructor(message: string, code = 'INPUT') {
    super(code, message);
  }
}

/** A row- or field-addressed problem in a text input (CSV, JSON, YAML). */
export class FormatError extends TracewattError {
  readonly file: string;
  constructor(file: string, where: string, problem: string) {
    super('FORMAT', `${file}${where ? `: ${where}` : ''}: ${problem}`);
    this.file = file;
  }
}

/** How many characters of a value the user typed an error message quotes in full. */
export const MAX_QUOTED_CHARS = 40;

/**
 * A value as an error message quotes it: whole when short, else its start and end with the length between
 * (a 300-digit number stays one readable line: "99999999999999999999…9999999999 (300 characters)").
 */
export function excerpt(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.6);
  const tail = max - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)} (${text.length} characters)`;
}

/** How many items of a list an error message names. */
export const MAX_LISTED_ITEMS = 8;

/** A list as an error message names it: the first few, then how many there are in all ("0, 2, 4, … (5000 in all)"). */
export function listExcerpt(items: readonly unknown[], max = MAX_LISTED_ITEMS): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')}, … (${items.length} in all)`;
}
