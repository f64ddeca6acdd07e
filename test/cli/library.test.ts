import { describe, expect, it } from 'vitest';
import * as tw from '../../src/index.js';
import { shipped } from '../helpers/traces.js';

describe('library entry (src/index.ts)', () => {
  it('exposes the layers: decode a real trace, inspect it, and get typed errors', async () => {
    const { nodes } = await tw.chakra.readTraceFile(shipped('astra-sim', 'all_gather', '8npus_1MB', 'all_gather.3.et'));
    const ins = await tw.inspectTrace(shipped('astra-sim', 'all_gather', '8npus_1MB', 'all_gather'));
    expect(ins.ranks[3].nodeCount).toBe(nodes.length);
    await expect(tw.chakra.readTraceFile('package.json')).rejects.toBeInstanceOf(tw.ChakraDecodeError);
    expect(typeof tw.replayFiles).toBe('function');
    expect(typeof tw.annotateTrace).toBe('function');
  });
});
