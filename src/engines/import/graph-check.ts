/** Checks an importer's output before it is written: a bug there must not become a trace that replays wrongly. */
import { TracewattError } from '../../errors.js';
import type { ChakraNode } from '../../formats/chakra/index.js';

/** Every dependency names a node of the trace, and data + ctrl deps form no cycle. */
export function checkGraph(file: string, nodes: ChakraNode[]): void {
  const ids = new Set(nodes.map((n) => n.id));
  const indeg = new Map<bigint, number>();
  const users = new Map<bigint, bigint[]>();
  for (const n of nodes) {
    const deps = new Set([...n.dataDeps, ...n.ctrlDeps]);
    for (const d of deps) {
      if (!ids.has(d))
        throw new TracewattError('INTERNAL', `${file}: node ${n.id} depends on absent node ${d} (converter bug)`);
      const l = users.get(d);
      if (l) l.push(n.id);
      else users.set(d, [n.id]);
    }
    indeg.set(n.id, deps.size);
  }
  const ready = nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  let done = 0;
  while (ready.length) {
    const id = ready.pop()!;
    done++;
    for (const u of users.get(id) ?? []) {
      const d = indeg.get(u)! - 1;
      indeg.set(u, d);
      if (d === 0) ready.push(u);
    }
  }
  if (done !== nodes.length)
    throw new TracewattError(
      'INTERNAL',
      `${file}: ${nodes.length - done} nodes sit on a dependency cycle (converter bug)`,
    );
}
