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
