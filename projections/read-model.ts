import type { BlobIndex, DeploySessions, Leases } from '../domain/ports.ts';
import type { ProjectionStore } from './projection-store.ts';
import type { Queries } from './queries.ts';

export type { ProjectionBatch, ReadModelBatch } from './projection-store.ts';
export type { SiteListResult, SiteQuery, SiteRef, SiteTreeChanges } from './queries.ts';

/**
 * One database that plays five ports: the projection store (projector), the queries (use
 * cases), the blob index, the deploy sessions and the leases. Each port says what it is;
 * the adapters (SQLite embedded, MongoDB) keep them in one database so that a projected
 * document, the blobs it references and the deploys that hold blobs answer together, and
 * every one passes test/contracts. Only the composition root (host/) sees the whole; it hands
 * each part to the code that needs it.
 */
export type ReadModel = ProjectionStore & Queries & BlobIndex & DeploySessions & Leases;
