import { activity } from './activity-operations.ts';
import { admin } from './admin-operations.ts';
import { domains } from './domain-operations.ts';
import { adminDeploys, deploys, ingest } from './ingest-operations.ts';
import type { Operation, Tag } from './operation.ts';
import { previews } from './preview-operations.ts';
import { sites } from './site-operations.ts';

export { ERROR_STATUSES, type Body, type ErrorStatus, type Operation, type Reply, type Tag } from './operation.ts';

/**
 * The operation registry: every `/ingest` and `/api` route, described with the schemas the
 * route validates with and answers (one file per plane: ingest-operations.ts,
 * site-operations.ts, admin-operations.ts; the shapes in operation.ts).
 * `api/openapi/document.ts` turns it into OpenAPI 3.1; `test/http/openapi.test.ts` checks
 * that every route the routers register is here.
 */
export const OPERATIONS: readonly Operation[] = [...ingest, ...deploys, ...sites, ...previews, ...domains, ...adminDeploys, ...admin, ...activity];

export const TAGS: Readonly<Record<Tag, string>> = {
  ingest: 'The ingest plane (API keys only): publish and manage sites from CI.',
  sites: 'Sites on the management plane (forward-auth users and keys).',
  revisions: 'Revisions: history, files, archives, rollback.',
  trash: 'Quarantined sites: restore or purge.',
  keys: 'API keys (admin).',
  connections: 'MCP connections (admin).',
  activity: 'The activity log of the whole service (admin).',
  webhooks: 'Webhooks: signed notifications of what happens (admin; Standard Webhooks).',
  meta: 'The caller, the instance and this document.',
};
