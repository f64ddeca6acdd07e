/** Reads a whole text input; a file that cannot be read is an InputError naming it and the reason (ENOENT, EACCES …). */
import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.js';

export async function readTextFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}
