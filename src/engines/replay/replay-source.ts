/**
 * The replay's reader of a rank file: each frame read in place by a node probe that notes only the attributes the
 * replay reads (replay-node.ts), and handed to the replay as it is read: no node object, no bigint per id or
 * dependency, no copy of the attribute bytes. It reads the same chunks as the full reader (reader.ts) and ends
 * its batches where that one does, and a trace gets the same verdict from both: the probe is the decoder's own
 * check of every frame, and a node the replay refuses is reported only once the rest of its chunk has been read
 * (the full reader decodes a whole chunk before the replay sees its first node, so a bad frame later in the chunk
 * is the error it reports).
 */
import type { Diagnostics } from '../../diagnostics.js';
import { FrameScanner, NodeProbe, openTraceBytes } from '../../formats/chakra/index.js';
import type { ChunkBufferPool } from '../../formats/chakra/source.js';
import { frameHash, RecordedReplayNode, type FrameMemo } from './frame-memo.js';
import { ProbedReplayNode, REPLAY_ATTR_NAMES, type ReplayNode } from './replay-node.js';

/**
 * What the readers of one trace's rank files share: the chunk buffers, and the probe (a reader reads a whole chunk's
 * frames in one synchronous step, so the ranks' readers never use it at the same time; one per rank would hold
 * 80 KiB each for the whole replay).
 */
export class ReplayReadState {
  readonly probe = new NodeProbe(REPLAY_ATTR_NAMES);
  readonly node = new ProbedReplayNode(this.probe);
  readonly recorded = new RecordedReplayNode();
  constructor(readonly pool: ChunkBufferPool) {}
}

/** Reads one rank file for the replay. */
export class ReplayFileReader {
  private frames: FrameScanner | null = null;
  private chunks: AsyncIterator<Buffer> | null = null;
  private close: (() => void) | null = null;
  private done = false;

  constructor(
    private readonly file: string,
    private readonly diagnostics: Diagnostics | undefined,
    private readonly shared: ReplayReadState,
  ) {}

  /**
   * Hands every node of the next chunk that holds one to `load`; false at the end of the file. A frame `memo` holds
   * the record of is handed over as that record, without being read again.
   */
  async readNodes(load: (n: ReplayNode) => void, memo: FrameMemo | null = null): Promise<boolean> {
    try {
      while (!this.done) {
        if (this.frames === null) await this.open();
        const more = await this.frames!.fill(this.chunks!);
        if (!more) this.done = true;
        const count = this.take(load, memo);
        if (this.done) this.release();
        if (count > 0) return true;
      }
      return false;
    } catch (e) {
      this.done = true;
      this.release();
      throw e;
    }
  }

  private async open(): Promise<void> {
    const pool = this.shared.pool;
    const bytes = await openTraceBytes(this.file, { reuseBuffers: pool });
    this.close = bytes.close;
    this.chunks = bytes.chunks[Symbol.asyncIterator]();
    this.frames = new FrameScanner(this.file, { diagnostics: this.diagnostics, knownSize: bytes.size, pool });
  }

  /** Reads every whole frame the scanner holds; the nodes to `load` until it refuses one. Returns the nodes read. */
  private take(load: (n: ReplayNode) => void, memo: FrameMemo | null): number {
    const frames = this.frames!;
    const { probe, node, recorded } = this.shared;
    if (memo !== null && !memo.open) memo = null;
    let count = 0;
    let refused: unknown = null;
    try {
      while (frames.next()) {
        if (frames.isMetadata) continue;
        const { cursor, start, end } = frames;
        const hash = memo === null ? 0 : frameHash(cursor, start, end);
        const record = memo === null ? undefined : memo.get(cursor, start, end, hash);
        // A recorded frame was read without error before: the same bytes read the same.
        if (record === undefined) probe.read(cursor, start, end);
        count++;
        if (refused !== null) continue;
        try {
          load(record === undefined ? node.frame(memo, start, end, hash) : recorded.of(record));
        } catch (e) {
          refused = e;
        }
      }
    } catch (e) {
      throw frames.error(e);
    }
    if (refused !== null) throw refused;
    return count;
  }

  private release(): void {
    this.close?.();
    this.frames?.release();
    this.close = null;
    this.frames = null;
    this.chunks = null;
  }
}
