import type { Queries } from '../../projections/queries.ts';

type Checkpoint = () => Promise<string | undefined>;

/**
 * A reader of the read model's checkpoint, as of a moment after the caller asked, read once
 * for every caller that asked in the same turn of the event loop. Each caller that keeps a
 * cache keyed by the checkpoint (the site server of a service instance) owns one.
 *
 * A cache keyed by the checkpoint stays read-your-writes only if the checkpoint is read
 * after the request arrived: a write that returned before the client sent its request
 * (on this instance or any other sharing the read model) was projected before that. So
 * the read waits for the check phase (`setImmediate`), which runs after the poll phase
 * has read every request of this turn; the batch is closed before the read starts, so a
 * caller that asks while it is under way waits for the next read. Under load one read
 * answers every request of a turn (tens with 64 connections), where one per request was
 * an eighth of the CPU a small file costs; alone, a request waits for nothing but the
 * rest of its own turn.
 */
export function checkpointReader(readModel: Pick<Queries, 'checkpoint'>): Checkpoint {
  return batchedReader(() => readModel.checkpoint());
}

function batchedReader(read: Checkpoint): Checkpoint {
  let pending: Promise<string | undefined> | undefined;
  return () =>
    (pending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // Closed before reading: whoever asks from now on is served by a later read.
      pending = undefined;
      return read();
    }));
}
