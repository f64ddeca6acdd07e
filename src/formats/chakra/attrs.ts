/**
 * Attribute access by name. Real traces disagree on which oneof member carries a value
 * (comm_size as int64 or uint64, is_cpu_op as bool or int32), so integer readers accept any
 * integer member, and unexpected members are recorded as diagnostics rather than failing.
 */
import type { Diagnostics } from '../../diagnostics.js';
import { DecodedNode } from './decoded-node.js';
import { ATTR_MEMBER_BY_KIND, BIGINT_SCALARS, INTEGER_SCALARS, type AttrKind } from './schema.js';
import type { AttrValue, Attribute, ChakraNode } from './types.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/**
 * The first attribute with this name. On a decoded node whose attributes were never materialised this decodes
 * just that one, as a fresh copy: change attributes through setAttr, not through the returned object.
 */
export function getAttr(node: { attrs: Attribute[] }, name: string): Attribute | undefined {
  if (attrsStillBytes(node)) return node.findAttr(name);
  const attrs = node.attrs;
  for (let i = 0; i < attrs.length; i++) if (attrs[i].name === name) return attrs[i];
  return undefined;
}

/**
 * Whether the node is a decoded node whose attributes are still wire bytes: reading `attrs` would decode them all,
 * where getAttr decodes just the one asked for.
 */
export function attrsStillBytes(node: { attrs: Attribute[] }): node is DecodedNode {
  return node instanceof DecodedNode && node.attrsAsBytes;
}

/** Whose attribute it is, for diagnostics: a node, or a probe of a node frame (whose id is read when needed). */
export interface AttributeOwner {
  readonly id: bigint;
}

function unexpected(diag: Diagnostics | undefined, owner: AttributeOwner, attr: Attribute, wanted: string): undefined {
  if (diag) {
    const id = owner.id;
    diag.add('unexpected-attribute-type', {
      nodeId: id,
      message: `node ${id} attribute ${attr.name} holds ${attr.kind ?? 'no value'}, expected ${wanted}`,
    });
  }
  return undefined;
}

/** Integer attribute as bigint from any integer member, bool (0/1), or an integral double. */
export function attrInt(node: ChakraNode, name: string, diag?: Diagnostics): bigint | undefined {
  const a = getAttr(node, name);
  return a ? intOfAttribute(a, node, diag) : undefined;
}

/** attrInt of an attribute already found (on a node or by a node probe). */
export function intOfAttribute(a: Attribute, owner: AttributeOwner, diag?: Diagnostics): bigint | undefined {
  const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
  if (member && !member.list) {
    const v = a.value;
    if (INTEGER_SCALARS.has(member.scalar)) return typeof v === 'bigint' ? v : BigInt(v as number);
    if (member.scalar === 'bool') return v ? 1n : 0n;
    if ((member.scalar === 'double' || member.scalar === 'float') && Number.isInteger(v)) {
      if (diag) {
        const id = owner.id;
        diag.add('integer-attribute-as-float', { nodeId: id, message: `node ${id} attribute ${a.name} is ${a.kind}` });
      }
      return BigInt(v as number);
    }
  }
  return unexpected(diag, owner, a, 'an integer');
}

/**
 * Numeric attribute as a JS number: floating members as they are, integers only when they fit
 * in 2^53 exactly (otherwise a diagnostic and undefined: never a silently rounded value).
 */
export function attrNumber(node: ChakraNode, name: string, diag?: Diagnostics): number | undefined {
  const a = getAttr(node, name);
  return a ? numberOfAttribute(a, node, diag) : undefined;
}

/**
 * A decoded attribute's plain value, as NodeProbe.varintAt reads it from a frame: an int32, int64, uint32, uint64 or
 * bool member of 0 to 2^53 − 1 (a bool as 0 / 1); −1 for anything else (read it with intOfAttribute and the like).
 */
export function plainIntOfAttribute(a: Attribute): number {
  const v = a.value;
  switch (a.kind) {
    case 'int64_val':
    case 'uint64_val':
    case 'int32_val':
    case 'uint32_val':
      if (typeof v === 'bigint') return v >= 0n && v <= MAX_SAFE ? Number(v) : -1;
      return typeof v === 'number' && v >= 0 && Number.isSafeInteger(v) ? v : -1;
    case 'bool_val':
      return typeof v === 'boolean' ? (v ? 1 : 0) : -1;
    default:
      return -1;
  }
}

/** A decoded attribute's double_val or float_val, as NodeProbe.floatAt reads it; undefined for other members. */
export function floatOfAttribute(a: Attribute): number | undefined {
  return a.kind === 'double_val' || a.kind === 'float_val' ? (a.value as number) : undefined;
}

/** attrNumber of an attribute already found (on a node or by a node probe). */
export function numberOfAttribute(a: Attribute, owner: AttributeOwner, diag?: Diagnostics): number | undefined {
  const f = floatOfAttribute(a);
  if (f !== undefined) return f;
  const v = intOfAttribute(a, owner, diag);
  if (v === undefined) return undefined;
  if (v > MAX_SAFE || v < MIN_SAFE) {
    diag?.add('attribute-exceeds-2^53', {
      nodeId: owner.id,
      message: `node ${owner.id} attribute ${a.name} = ${v} does not fit a float exactly`,
    });
    return undefined;
  }
  return Number(v);
}

/** Boolean attribute from bool_val or any integer member (non-zero = true). */
export function attrBool(node: ChakraNode, name: string, diag?: Diagnostics): boolean | undefined {
  const a = getAttr(node, name);
  return a ? boolOfAttribute(a, node, diag) : undefined;
}

/** attrBool of an attribute already found. */
export function boolOfAttribute(a: Attribute, owner: AttributeOwner, diag?: Diagnostics): boolean | undefined {
  if (a.kind === 'bool_val') return a.value as boolean;
  const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
  if (member && !member.list && INTEGER_SCALARS.has(member.scalar)) {
    return typeof a.value === 'bigint' ? a.value !== 0n : a.value !== 0;
  }
  return unexpected(diag, owner, a, 'bool or an integer');
}

export function attrString(node: ChakraNode, name: string, diag?: Diagnostics): string | undefined {
  const a = getAttr(node, name);
  return a ? stringOfAttribute(a, node, diag) : undefined;
}

/** attrString of an attribute already found. */
export function stringOfAttribute(a: Attribute, owner: AttributeOwner, diag?: Diagnostics): string | undefined {
  if (a.kind === 'string_val') return a.value as string;
  return unexpected(diag, owner, a, 'string_val');
}

/** bool_list, or an integer list read as non-zero flags. */
export function attrBoolList(node: ChakraNode, name: string, diag?: Diagnostics): boolean[] | undefined {
  const a = getAttr(node, name);
  return a ? boolListOfAttribute(a, node, diag) : undefined;
}

/** attrBoolList of an attribute already found. */
export function boolListOfAttribute(a: Attribute, owner: AttributeOwner, diag?: Diagnostics): boolean[] | undefined {
  if (a.kind === 'bool_list') return a.value as boolean[];
  const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
  if (member?.list && INTEGER_SCALARS.has(member.scalar)) {
    return (a.value as (number | bigint)[]).map((v) => (typeof v === 'bigint' ? v !== 0n : v !== 0));
  }
  return unexpected(diag, owner, a, 'bool_list');
}

/** Builds an attribute, converting numbers to bigint for 64-bit kinds. */
export function makeAttr(name: string, kind: AttrKind, value: AttrValue): Attribute {
  const member = ATTR_MEMBER_BY_KIND.get(kind);
  if (!member) throw new TypeError(`unknown attribute kind ${kind}`);
  const toBig = BIGINT_SCALARS.has(member.scalar);
  const v = member.list
    ? (value as unknown[]).map((x) => (toBig && typeof x === 'number' ? BigInt(x) : x))
    : toBig && typeof value === 'number'
      ? BigInt(value)
      : value;
  return { name, docString: '', kind, value: v as AttrValue };
}

/** Replaces the attribute of the same name in place (keeping its position), or appends it. */
export function setAttr(node: { attrs: Attribute[] }, attr: Attribute): void {
  const i = node.attrs.findIndex((a) => a.name === attr.name);
  if (i >= 0) node.attrs[i] = attr;
  else node.attrs.push(attr);
}
