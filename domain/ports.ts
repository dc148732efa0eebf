/**
 * The ports of the publishing service, one file each under domain/ports/: the event log, the
 * file store, the blob index, deploy sessions, leases and outbound HTTP. The projected
 * documents and their queries are projections/' own (projection-store.ts, queries.ts).
 * host/ picks the adapters.
 */
export type { EventStore, EventToAppend, ExpectedRevision } from './ports/event-store.ts';
export type { Archived, BlobStore, ByteRange, PutResult } from './ports/blob-store.ts';
export type { BlobIndex } from './ports/blob-index.ts';
export type { DeploySessions } from './ports/deploy-sessions.ts';
export type { Leases } from './ports/leases.ts';
export type { OutboundHttp, OutboundRefusal, OutboundRequest, OutboundResponse } from './ports/outbound-http.ts';
