/**
 * Short writes while generating rank files. writev may write fewer bytes than asked without an error (a disk filling
 * up does that first); generate took that as a failure ("g.2.et: wrote 20480 of 300193 bytes", found on a full
 * 600 KiB tmpfs) instead of writing the rest, and on a full disk never said ENOSPC. File handles from node:fs/promises
 * are stubbed: writev writes only its first piece, and with `full` every later write fails with ENOSPC.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const stub = vi.hoisted(() => ({ short: false, full: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  const open = (async (...args: Parameters<typeof fsp.open>) => {
    const fh = await fsp.open(...args);
    if (!stub.short) return fh;
    const enospc = () =>
      Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      });
    let wrote = false;
    return new Proxy(fh, {
      get(target, prop) {
        if (prop === 'writev') {
          return async (buffers: Buffer[]) => {
            if (stub.full && wrote) throw enospc();
            wrote = true;
            return target.write(buffers[0]).then((r) => ({ bytesWritten: r.bytesWritten, buffers }));
          };
        }
        if (prop === 'write') {
          return async (...a: Parameters<typeof fh.write>) => {
            if (stub.full && wrote) throw enospc();
            wrote = true;
            return (target.write as (...x: unknown[]) => ReturnType<typeof fh.write>)(...a);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
      },
    });
  }) as typeof fsp.open;
  return { ...fsp, default: { ...fsp, open }, open };
});

const { writeLlmTraces } = await import('../../src/engines/generate/index.js');

const options = { model: 'llama2-7b', dp: 1, tp: 2, pp: 1, microBatch: 1, globalBatch: 1, seqLen: 128 };

afterEach(() => {
  stub.short = false;
  stub.full = false;
});

const contents = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(path.join(dir, f)).toString('base64')]),
  );

describe('generate on short writes', () => {
  it('writes the rest after a short write: the same files as without', async () => {
    const a = await mkdtemp(path.join(os.tmpdir(), 'tw-short-a-'));
    const b = await mkdtemp(path.join(os.tmpdir(), 'tw-short-b-'));
    await writeLlmTraces({ ...options, outPrefix: path.join(a, 'g') });
    stub.short = true;
    await writeLlmTraces({ ...options, outPrefix: path.join(b, 'g') });
    expect(Object.keys(contents(b))).toEqual(['g.0.et', 'g.1.et', 'g.network.yml', 'g.system.json']);
    expect(contents(b)).toEqual(contents(a));
  });

  it('a disk that fills up after a short write: ENOSPC naming the rank file, nothing left', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-short-full-'));
    stub.short = true;
    stub.full = true;
    const e = await writeLlmTraces({ ...options, outPrefix: path.join(dir, 'g'), concurrency: 1 }).catch(
      (x: unknown) => x,
    );
    expect((e as Error).message).toBe(`${path.join(dir, 'g.0.et')}: cannot write (ENOSPC)`);
    expect(readdirSync(dir)).toEqual([]);
  });
});
