import type { BlobIndex, BlobStore, DeploySessions, EventStore } from '../domain/ports.ts';
import type { Versioning } from '../domain/site/decide.ts';
import type { Queries } from '../projections/queries.ts';
import type { PublishGate } from './gate.ts';

export type Limits = {
  readonly maxUploadBytes: number;
  readonly maxExtractBytes: number;
  readonly maxExtractEntries: number;
  /** How long an incremental deploy stays open (spec §10: one hour; SITES_DEPLOY_TTL). */
  readonly deployTtlMs?: number;
};

/**
 * What the use cases need: the ports (the log, the projected documents' queries, the blob
 * index, the deploy sessions, the file store), settings, and a way to wait until the
 * projections have applied a stream revision (read-your-writes).
 */
export type CommandDeps = {
  readonly events: EventStore;
  readonly queries: Queries;
  readonly blobIndex: BlobIndex;
  readonly deploys: DeploySessions;
  readonly blobs: BlobStore;
  readonly versioning: Versioning;
  readonly limits: Limits;
  /** Folder for spooled uploads (zip central directories live at the end). */
  readonly tmpDir: string;
  /** Resolves once the read model has applied `stream` up to `revision`. */
  readonly waitForProjection: (stream: string, revision: number) => Promise<void>;
  /** Publishes hold it shared, garbage collection exclusive (see gate.ts). */
  readonly gate: PublishGate;
  readonly now: () => Date;
};
