/**
 * `import pytorch --dir`: the execution trace (ET) and Kineto trace of each rank in a folder, each JSON file told by
 * its content; an ET paired with the Kineto trace of the same process id, else of the same number in the file name.
 * Nothing is dropped without a word: a Kineto trace no ET pairs with is an error naming it (or, with `partial`, left
 * out and said), an ET without its Kineto trace is an error, and every other file is named in a note. A linked "ET+"
 * (chakra_trace_link output) is read as the ET it was made from; beside the plain ET of the same process it is left
 * out (said).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError, listExcerpt } from '../../errors.js';
import { readHead } from '../../formats/file-chunks.js';
import { looksLikeKineto } from '../../formats/kineto/trace.js';
import { looksLikeLinkedEt, looksLikePytorchEt } from '../../formats/pytorch/et.js';

export interface ImportPair {
  et: string;
  kineto: string;
}

export interface FolderPairs {
  pairs: ImportPair[];
  /** What the folder held besides the pairs, and what was left out (said in the result). */
  notes: string[];
}

interface Found {
  file: string;
  pid: number | null;
}

/** The first 64 KB of a file's text (decompressed), enough to tell a Kineto trace from an execution trace. */
const head = async (file: string) => (await readHead(file, 64 * 1024)).bytes.toString('utf8');

const trailingNumber = (f: string) => {
  const m = /(\d+)(?!.*\d)/.exec(
    path
      .basename(f)
      .replace(/\.json(\.gz)?$/, '')
      .replace(/\.pt\.trace$/, '')
      .replace(/\.\d{10,}$/, ''),
  );
  return m ? Number(m[1]) : null;
};

const names = (files: string[]) => listExcerpt(files.map((f) => path.basename(f)));

/** Pairs the ET and Kineto files of a folder: by process id, else by the number in the file name. */
export async function pairFolder(dir: string, o: { partial?: boolean } = {}): Promise<FolderPairs> {
  const entries = (
    await readdir(dir).catch(() => {
      throw new InputError(`${dir}: cannot read the folder`);
    })
  ).sort();
  const ets: Found[] = [];
  const linked: Found[] = [];
  const kinetos: Found[] = [];
  const other: string[] = [];
  for (const n of entries) {
    const file = path.join(dir, n);
    if (!(await stat(file)).isFile()) continue;
    if (!/\.json(\.gz)?$/.test(n)) {
      other.push(file);
      continue;
    }
    const h = await head(file);
    const pid = /"pid"\s*:\s*(\d+)/.exec(h);
    const found = { file, pid: pid ? Number(pid[1]) : null };
    if (looksLikeKineto(h)) kinetos.push(found);
    else if (looksLikePytorchEt(h)) (looksLikeLinkedEt(h) ? linked : ets).push(found);
    else other.push(file);
  }
  const notes: string[] = [];
  // An ET+ beside the ET it was made from (same process): the plain one is read.
  for (const l of linked) {
    if (l.pid !== null && ets.some((e) => e.pid === l.pid))
      notes.push(
        `${l.file} is a linked "ET+" (chakra_trace_link output) of the same process as an execution trace in ` +
          `the folder: left out, the execution trace is read`,
      );
    else ets.push(l);
  }
  if (other.length)
    notes.push(
      `${dir}: ${other.length} file(s) neither an execution trace nor a Kineto trace, not read: ${names(other)}`,
    );
  if (ets.length === 0 || kinetos.length === 0) {
    throw new InputError(
      `${dir}: found ${ets.length} execution trace(s) and ${kinetos.length} Kineto trace(s); need both for ` +
        `each rank${other.length ? ` (not recognised: ${names(other)})` : ''}`,
    );
  }
  const pairs: ImportPair[] = [];
  const used = new Set<string>();
  for (const e of ets.sort((a, b) => a.file.localeCompare(b.file))) {
    let k = e.pid !== null ? kinetos.find((x) => x.pid === e.pid && !used.has(x.file)) : undefined;
    if (!k) {
      const n = trailingNumber(e.file);
      k = n !== null ? kinetos.find((x) => trailingNumber(x.file) === n && !used.has(x.file)) : undefined;
    }
    if (!k)
      throw new InputError(
        `${e.file}: no Kineto trace in ${dir} of the same process id (${e.pid ?? 'none recorded'}) or rank ` +
          `number${other.length ? `; not recognised as a trace: ${names(other)}` : ''}`,
      );
    used.add(k.file);
    pairs.push({ et: e.file, kineto: k.file });
  }
  const alone = kinetos.filter((k) => !used.has(k.file)).map((k) => k.file);
  if (alone.length && !o.partial) {
    throw new InputError(
      `${alone[0]}: no execution trace in ${dir} pairs with this Kineto trace (same process id or rank number)` +
        (alone.length > 1 ? `, nor with ${alone.length - 1} other(s): ${names(alone.slice(1))}` : '') +
        `${other.length ? `; not recognised as a trace: ${names(other)}` : ''}; give its execution trace, or pass ` +
        `--partial to import the ranks that have both`,
    );
  }
  if (alone.length)
    notes.push(`partial import: ${alone.length} Kineto trace(s) without an execution trace left out: ${names(alone)}`);
  return { pairs, notes };
}
