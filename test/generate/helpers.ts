import { attrBool, attrBoolList, attrInt, attrString } from '../../src/formats/chakra/attrs.js';
import type { ChakraNode } from '../../src/formats/chakra/types.js';

export const num = (n: ChakraNode, name: string): number => {
  const v = attrInt(n, name);
  if (v === undefined) throw new Error(`node ${n.id} (${n.name}) has no ${name}`);
  return Number(v);
};
export { attrBool, attrBoolList, attrString };
