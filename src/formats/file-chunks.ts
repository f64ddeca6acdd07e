/**
 * A large input file's bytes, gzip read through transparently: as a stream of chunks, or its first bytes (for
 * sniffing a format). Every way the file cannot be read (missing, a folder, no permission) is an InputError naming
 * it; a corrupt or cut gzip stream is a FormatError naming it.
 */
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { FormatError, InputError } from '../errors.js';

export const CHUNK_BYTES = 1 << 20;

/**
 * The one wording of a file the file system will not read: `<file>: cannot read (ENOENT)` (any errno code: ENOENT,
 * EISDIR, EACCES, EIO …) as an InputError; any other error is returned as it is. Every reader of an input uses it.
 */
export function fileReadError(file: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return new InputError(`${file}: cannot read (${code})`);
  return e instanceof Error ? e : new Error(String(e));
}

/** The typed error for a failure reading `file`: InputError for the file system's, FormatError for gzip's. */
export function readError(file: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code?.startsWith('ERR_ZLIB')) {
    return new FormatError(file, '', `gzip stream is corrupt or cut short (${(e as Error).message})`);
  }
  return fileReadError(file, e);
}

/** Opens a file for reading; a file that cannot be opened is an InputError naming it. */
export async function openInput(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (e) {
    throw readError(file, e);
  }
}

/** True when the file starts with the gzip magic bytes. */
export async function isGzipFile(file: string): Promise<boolean> {
  const fh = await openInput(file);
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } catch (e) {
    throw readError(file, e); // EISDIR surfaces here: a folder opens, but does not read
  } finally {
    await fh.close();
  }
}

/** The file's bytes as a stream of chunks, gunzipped when it is gzip. */
export async function* fileChunks(file: string): AsyncGenerator<Buffer> {
  const gz = await isGzipFile(file);
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const stream = gz ? raw.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : raw;
  if (gz) raw.on('error', (e) => stream.destroy(e));
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (e) {
    throw readError(file, e);
  } finally {
    raw.destroy();
  }
}

/**
 * The first `maxBytes` of the file's content (decompressed when gzip), and whether the content goes on beyond them.
 * A corrupt or cut gzip stream gives what could be read: sniffing leaves that error to the reader, which names it.
 */
export async function readHead(file: string, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const parts: Buffer[] = [];
  let got = 0;
  try {
    for await (const chunk of fileChunks(file)) {
      parts.push(chunk);
      got += chunk.length;
      if (got > maxBytes) break;
    }
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
  }
  const all = Buffer.concat(parts);
  return { bytes: all.subarray(0, maxBytes), cut: all.length > maxBytes };
}
