import type { Recorded } from '../domain/events.ts';

/**
 * A projection batch that spans several reads of the log (catch-up and replay): events
 * are folded into the documents they touch in memory, and `commit` stores each touched
 * document once, with the checkpoint. Memory grows with the streams touched, not the
 * events (the caller bounds it with `streams`); nothing is stored before `commit`.
 */
export type ProjectionBatch = {
  /** The checkpoint when the batch began: its first event must follow it. */
  readonly from: string | undefined;
  /** Number of streams the batch holds in memory. */
  readonly streams: number;
  /** Folds the next events of the log into the batch (loading the records it lacks). Skips events already applied. */
  add(events: readonly Recorded[]): Promise<void>;
  /**
   * Stores every document the batch changed and `checkpoint` (the position of the last
   * event added), with the same guarantees as `apply`. Refused when another projector
   * moved the checkpoint since the batch began: the checkpoint stays where that one put
   * it, and projecting goes on from there (a document the refused batch may have written
   * first is one the log produces anyway, never older than the stored one).
   */
  commit(checkpoint: string): Promise<void>;
};

/** The read model's batch, which also says about how much memory its records take (bytes, an estimate): what a catch-up bounds it by. */
export type ReadModelBatch = ProjectionBatch & { readonly bytes: number };

/**
 * Where the projector writes: the documents of projections/project.ts and the checkpoint,
 * stored together. Only the projector (host/projector.ts) and `sites replay` use it; readers
 * use the queries (queries.ts).
 */
export interface ProjectionStore {
  /** Position of the last event applied, or undefined before the first. */
  checkpoint(): Promise<string | undefined>;
  /**
   * Applies a batch with `projectBatch` and stores `checkpoint`, atomically: after a crash
   * either both are stored or neither. Events already applied (per-stream revision) are skipped.
   */
  apply(events: readonly Recorded[], checkpoint: string): Promise<void>;
  /** Starts a batch at the current checkpoint (see ProjectionBatch): what catch-up and replay use. */
  beginBatch(): Promise<ReadModelBatch>;
  /**
   * Last revision of `stream` applied to the read model and committed with a checkpoint, -1
   * when none: read-your-writes waits on it, so once it answers, `checkpoint()` covers the
   * events and caches keyed by the checkpoint see them.
   */
  streamRevision(stream: string): Promise<number>;
  /** Drops every projected document and the checkpoint (for `sites replay`). */
  reset(): Promise<void>;
  close(): Promise<void>;
}
