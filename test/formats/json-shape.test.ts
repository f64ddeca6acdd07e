/**
 * The one JSON-shape checker (src/formats/json-shape.ts): every message is `<file>: <json path>: expected …, found …`.
 */
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { describeJson, jsonPath, JsonShape } from '../../src/formats/json-shape.js';

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as Error).message;
  }
  throw new Error('did not throw');
};

describe('JsonShape', () => {
  const c = new JsonShape('power.json');
  it('writes paths with dots and brackets, the root without one', () => {
    expect(jsonPath('', 'gpu')).toBe('gpu');
    expect(jsonPath('gpu', 'idlePowerW')).toBe('gpu.idlePowerW');
    expect(jsonPath('network', 1)).toBe('network[1]');
    expect(messageOf(() => c.object(42, '', 'a power configuration'))).toBe(
      'power.json: expected a power configuration, found 42',
    );
  });
  it('names what was expected and what was found', () => {
    expect(messageOf(() => c.number({ idlePowerW: 'x' }, 'idlePowerW', 'gpu'))).toBe(
      'power.json: gpu.idlePowerW: expected a number, found "x"',
    );
    expect(messageOf(() => c.number({}, 'idlePowerW', 'gpu'))).toBe(
      'power.json: gpu.idlePowerW: expected a number, found nothing (missing)',
    );
    expect(messageOf(() => c.number({ w: 1e300 }, 'w', '', { min: 0, max: 1e4, unit: 'W' }))).toBe(
      'power.json: w: must be ≥ 0 W and ≤ 1e4 W, found 1e300',
    );
    expect(messageOf(() => c.numberList({ bw: [1, true] }, 'bw', 'net'))).toBe(
      'power.json: net.bw[1]: expected a number, found true',
    );
    expect(messageOf(() => c.oneOf({ s: 'X' }, 's', '', ['LIFO', 'FIFO']))).toBe(
      'power.json: s: expected one of LIFO, FIFO, found "X"',
    );
    expect(messageOf(() => c.refuseUnknown({ idlePowrW: 1 }, 'gpu', ['idlePowerW']))).toBe(
      'power.json: gpu.idlePowrW: unknown key; did you mean "idlePowerW"?',
    );
  });
  it('returns the values it checked, and defaults for absent ones', () => {
    expect(c.number({ a: 2 }, 'a', '')).toBe(2);
    expect(c.number({}, 'a', '', { def: 7 })).toBe(7);
    expect(c.maybeNumber({ a: null }, 'a', '', { nullable: true })).toBeNull();
    expect(c.flag({ f: 1 }, 'f', '')).toBe(true);
    expect(c.stringList({ s: ['a'] }, 's', '')).toEqual(['a']);
  });
  it('shows short lists and objects as JSON, long ones by size', () => {
    expect(describeJson({ index: 1 })).toBe('{"index":1}');
    expect(describeJson([])).toBe('an empty list');
    expect(describeJson(Array.from({ length: 50 }, (_, i) => i))).toBe('a list of 50 entries');
  });
});
