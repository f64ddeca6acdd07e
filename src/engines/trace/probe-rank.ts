/**
 * One rank's node frames read in place through a node probe (the codec's wire layer), into the dependency graph and
 * the caller's tally: the read path of inspect and validate.
 */
import type { Diagnostics } from '../../diagnostics.js';
import { readFrames, type FrameStream } from '../../formats/chakra/frame-stream.js';
import type { FrameScanner } from '../../formats/chakra/frames.js';
import type { NodeProbe } from '../../formats/chakra/probe.js';
import { BufferPool } from '../../formats/chakra/buffer-pool.js';
import { CHUNK_BYTES } from '../../formats/chakra/source.js';
import { DependencyGraph, graphFacts, type GraphFacts } from './graph.js';

/** What a reader of ranks one after another keeps from one to the next: the graph's tables and the read buffers. */
export class RankWorkspace {
  readonly graph = new DependencyGraph(true);
  readonly pool = new BufferPool(CHUNK_BYTES + (CHUNK_BYTES >> 4));
}

/**
 * Reads a rank's node frames through `probe` into the dependency graph and `onNode`; returns the graph's facts and
 * the stream (metadata, bytes read, compression). `dataDepsUnread`: onNode never reads probe.dataDeps, so a data
 * dependency list the graph has classed before is left undecoded (NodeProbe.knownLists).
 */
export async function probeRank(
  file: string,
  probe: NodeProbe,
  diagnostics: Diagnostics,
  onNode: (probe: NodeProbe, frames: FrameScanner) => void,
  workspace = new RankWorkspace(),
  dataDepsUnread = false,
): Promise<{ facts: GraphFacts; stream: FrameStream }> {
  const pool = workspace.pool;
  let stream: FrameStream | null = null;
  const facts = await graphFacts(async (graph) => {
    if (dataDepsUnread) probe.knownLists = graph.knownLists;
    // A second read (an id presumed dangling turned up) is for the graph alone: the tally has its nodes already.
    const again = stream !== null;
    const read = await readFrames(
      file,
      (frames) => {
        while (frames.next()) {
          if (frames.isMetadata) continue;
          probe.read(frames.cursor, frames.start, frames.end);
          graph.add(probe);
          if (!again) onNode(probe, frames);
        }
      },
      again ? { pool } : { diagnostics, pool },
    );
    stream ??= read;
  }, workspace.graph);
  probe.knownLists = null;
  return { facts, stream: stream! };
}
