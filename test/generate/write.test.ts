/** Files written by writeLlmTraces and the CLI decode with the Chakra reader to the same nodes. */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { generateLlmCommand } from '../../src/cli/commands/generate.js';
import { parseModelJson } from '../../src/engines/generate/models.js';
import { generateLlmTraces, writeLlmTraces, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { readTraceFile } from '../../src/formats/chakra/reader.js';
import type { ChakraNode } from '../../src/formats/chakra/types.js';
import { InputError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-gen-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small tied-embedding GeLU model so every kind of node appears in a few hundred nodes per rank. */
const tiny = {
  name: 'tiny',
  hiddenSize: 256,
  numLayers: 4,
  numHeads: 8,
  ffnHiddenSize: 1024,
  vocabSize: 1000,
  activation: 'gelu',
  tiedEmbeddings: true,
  learnedPositions: 512,
  linearBias: true,
};

const plain = (n: ChakraNode) =>
  JSON.stringify({ ...n, attrs: n.attrs.map((a) => ({ name: a.name, kind: a.kind, value: a.value })) }, (_k, v) =>
    typeof v === 'bigint' ? `${v}n` : v,
  );

describe('writeLlmTraces', () => {
  it('writes one decodable trace per rank, equal to the in-memory nodes, and a matching network', async () => {
    const o: LlmGenerateOptions = {
      model: parseModelJson(tiny),
      dp: 2,
      tp: 2,
      pp: 2,
      microBatch: 1,
      globalBatch: 8,
      seqLen: 256,
      sequenceParallel: true,
    };
    const prefix = path.join(dir, 'tiny', 'run');
    const result = await writeLlmTraces({ ...o, outPrefix: prefix });
    const files = (await readdir(path.dirname(prefix))).filter((f) => f.endsWith('.et'));
    expect(files.length).toBe(8);
    const set = generateLlmTraces(o);
    let total = 0;
    for (let r = 0; r < 8; r++) {
      const { metadata, nodes } = await readTraceFile(`${prefix}.${r}.et`);
      expect(metadata?.version).toBe('0.0.4');
      expect(nodes.map(plain)).toEqual(set.nodesOf(r).map(plain));
      total += nodes.length;
    }
    expect(result.nodes).toBe(total);
    const net = parseYaml(await readFile(`${prefix}.network.yml`, 'utf8'));
    expect(net.npus_count).toEqual([2, 2, 2]);
    expect(net.topology[0]).toBe('Switch');
    const sys = JSON.parse(await readFile(`${prefix}.system.json`, 'utf8'));
    expect(sys['all-reduce-implementation'].length).toBe(3);
    expect(sys['roofline-enabled']).toBe(1);
  });
});

describe('tracewatt generate llm', () => {
  const io = () => {
    let out = '';
    return {
      io: {
        out: (t: string) => {
          out += t;
        },
        err: () => {},
        isTTY: false,
      },
      text: () => out,
    };
  };
  const defaults = {
    dp: 1,
    tp: 1,
    pp: 1,
    microBatch: 1,
    schedule: '1f1b',
    recompute: 'none',
    dtype: 'bf16',
    gradReduceDtype: 'fp32',
    gpu: 'h100',
  };

  it('writes the files named in its output', async () => {
    const prefix = path.join(dir, 'cli', 'llama');
    const { io: sink, text } = io();
    const code = await generateLlmCommand.run(
      [],
      { ...defaults, model: 'llama2-7b', tp: '2', pp: '2', globalBatch: '4', seq: '512', out: prefix },
      sink,
    );
    expect(code).toBe(0);
    expect(text()).toContain('4 ranks');
    for (const f of [`${prefix}.0.et`, `${prefix}.3.et`, `${prefix}.network.yml`, `${prefix}.system.json`]) {
      expect(text()).toContain(f);
      expect((await readFile(f)).length).toBeGreaterThan(0);
    }
  });

  it('reads a custom model file and reports bad options as input errors', async () => {
    const modelFile = path.join(dir, 'custom.json');
    await writeFile(modelFile, JSON.stringify(tiny));
    const { io: sink, text } = io();
    expect(
      await generateLlmCommand.run(
        [],
        { ...defaults, model: modelFile, globalBatch: '2', seq: '128', out: path.join(dir, 'custom', 'c'), json: true },
        sink,
      ),
    ).toBe(0);
    expect(JSON.parse(text()).ranks).toBe(1);
    await expect(
      generateLlmCommand.run(
        [],
        { ...defaults, model: 'llama2-7b', globalBatch: '2', seq: 'long', out: path.join(dir, 'x') },
        io().io,
      ),
    ).rejects.toThrow(InputError);
    await expect(
      generateLlmCommand.run(
        [],
        { ...defaults, model: 'llama2-7b', schedule: 'zb', globalBatch: '2', seq: '128', out: path.join(dir, 'x') },
        io().io,
      ),
    ).rejects.toThrow(/--schedule: expected one of 1f1b, gpipe, got "zb"/);
  });
});
