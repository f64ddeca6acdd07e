/**
 * The worker-pool helper in this thread: errors serialized as a worker sends them (through a real structured clone)
 * come back as the same class with the same message and fields; runLanes stops handing out tasks after the first
 * failure and throws that failure once every lane has stopped.
 */
import { describe, expect, it } from 'vitest';
import { ChakraDecodeError, FormatError, InputError, TracewattError } from '../../src/errors.js';
import { rebuildError, runLanes, serializeError } from '../../src/engines/workers/index.js';

/** What the calling thread rebuilds from what a worker sent. */
const across = (e: unknown) => rebuildError(structuredClone(serializeError(e)));

describe('errors across threads', () => {
  it('rebuilds each typed error as its own class, with message, code and fields', () => {
    const cases: [Error, new (...args: never[]) => Error][] = [
      [new InputError('a.yml: key "topology" is missing'), InputError],
      [new InputError('x: cannot write (ENOSPC)', 'OUTPUT'), InputError],
      [new FormatError('p.csv', 'row 12, column "powerW"', 'expected a number, got "abc"'), FormatError],
      [new ChakraDecodeError({ file: 't.1.et', offset: 1234, frameIndex: 97 }, 'frame cut short'), ChakraDecodeError],
      [new TracewattError('CUSTOM', 'something typed'), TracewattError],
      [new TypeError('not a function'), TypeError],
    ];
    for (const [e, cls] of cases) {
      const back = across(e) as Error;
      expect(back).toBeInstanceOf(cls);
      expect(back.constructor).toBe(cls);
      expect(back.message).toBe(e.message);
      expect(back.name).toBe(e.name);
      expect({ ...back }).toEqual({ ...e });
      expect(back.stack).toBe(e.stack);
      if (e instanceof TracewattError) expect(back).toBeInstanceOf(TracewattError);
    }
    const decode = across(
      new ChakraDecodeError({ file: 't.1.et', offset: 1234, frameIndex: 97 }, 'cut'),
    ) as ChakraDecodeError;
    expect(decode.location).toEqual({ file: 't.1.et', offset: 1234, frameIndex: 97 });
    expect(decode.code).toBe('CHAKRA_DECODE');
  });

  it(
    "keeps an errno error's code and path, a cause, an unknown class's name, and a thrown value that is no " + 'Error',
    () => {
      const errno = Object.assign(new Error('ENOENT: no such file'), {
        code: 'ENOENT',
        errno: -2,
        path: '/x/y',
        syscall: 'open',
      });
      const back = across(errno) as NodeJS.ErrnoException;
      expect(back).toBeInstanceOf(Error);
      expect([back.message, back.code, back.path, back.syscall]).toEqual([
        'ENOENT: no such file',
        'ENOENT',
        '/x/y',
        'open',
      ]);

      const wrapped = across(new InputError('outer', 'X')) as Error;
      expect(wrapped.cause).toBeUndefined();
      const withCause = across(new Error('outer', { cause: new FormatError('f.json', '', 'inner') })) as Error;
      expect(withCause.cause).toBeInstanceOf(FormatError);
      expect((withCause.cause as Error).message).toBe('f.json: inner');

      class WireLikeError extends Error {
        constructor(readonly position: number) {
          super('varint too long');
        }
      }
      const unknown = across(new WireLikeError(17)) as Error & { position: number };
      expect([unknown.constructor, unknown.name, unknown.message, unknown.position]).toEqual([
        Error,
        'WireLikeError',
        'varint too long',
        17,
      ]);

      expect(across('a string')).toBe('a string');
      // A field structured clone cannot carry (a function) comes across as text, not as a failed reply.
      const odd = across(Object.assign(new InputError('odd'), { hook: () => 1 })) as InputError & { hook: unknown };
      expect([odd.constructor, typeof odd.hook]).toEqual([InputError, 'string']);
    },
  );
});

describe('runLanes', () => {
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('gives results in task order, each lane taking the next task when free', async () => {
    const done: number[] = [];
    // Task 0 holds its lane until the other lane has done every other task.
    let others = 0;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const lane = async (t: number) => {
      if (t === 0) await held;
      else if (++others === 4) release();
      await wait(1);
      return t * 10;
    };
    expect(await runLanes([0, 1, 2, 3, 4], [lane, lane], { onDone: (i) => done.push(i) })).toEqual([0, 10, 20, 30, 40]);
    expect(done[done.length - 1]).toBe(0);
    expect([...done].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('after the first failure takes no other task, lets the running ones finish, then throws that failure', async () => {
    const started: number[] = [];
    let running = 0;
    let finishedAfterFailure = 0;
    let failed = false;
    const lane = async (t: number) => {
      started.push(t);
      running++;
      await wait(t === 1 ? 1 : 20);
      running--;
      if (t === 1) {
        failed = true;
        throw new InputError(`task ${t} is bad`);
      }
      if (t === 2) throw new FormatError('later.csv', '', 'a second failure, not reported');
      if (failed) finishedAfterFailure++;
      return t;
    };
    const run = runLanes(
      Array.from({ length: 20 }, (_, i) => i),
      [lane, lane, lane],
    );
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toThrow('task 1 is bad');
    expect(running).toBe(0);
    expect(started).toEqual([0, 1, 2]);
    expect(finishedAfterFailure).toBe(1);
  });

  it('stops handing out tasks once the signal aborts', async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    const lane = async (t: number) => {
      seen.push(t);
      if (t === 2) ac.abort(new InputError('interrupted'));
      await wait(1);
      return t;
    };
    await expect(runLanes([0, 1, 2, 3, 4, 5], [lane], { signal: ac.signal })).rejects.toThrow('interrupted');
    expect(seen).toEqual([0, 1, 2]);
  });
});
