/** The management API's resources, as in shared/spec/sites-api.md §3 and §5. */

export type Me = {
  user: string;
  is_admin: boolean;
  base_domain: string;
  versioning_enabled: boolean;
  mcp_enabled: boolean;
};

// The shapes the server sends, shared with it as types only (nothing of the server is bundled).
import type { Revision as RevisionJson } from '../../app/contract/revision.ts';
import type { Preview as PreviewJson } from '../../app/contract/preview.ts';
import type { Site as SiteJson } from '../../app/contract/site.ts';
import type { FileNode as ServerFileNode } from '../../domain/file-tree.ts';
import type { TreeNode as ServerTreeNode } from '../../projections/site-list.ts';

export type Site = SiteJson;
export type TreeNode = ServerTreeNode<Site>;
export type SiteList = { sites: Site[]; tree: TreeNode; count: number };
export type Revision = RevisionJson;
export type FileNode = ServerFileNode;
/** A named, expiring copy of a site beside its live content (spec §14). */
export type Preview = PreviewJson;

export const CAPABILITIES = ['publish', 'unpublish', 'rollback', 'patch', 'purge', 'preview'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type Grant = { kind: 'group' | 'site'; target: string; permissions: Capability[] };

export type ApiKey = {
  id: number;
  name: string;
  admin: boolean;
  grants: Grant[];
  created_at: string;
  expires_at?: string;
  last_used_at?: string;
  /** Only on revoked keys (listed with `?revoked=true`): when, and who revoked it. */
  revoked_at?: string;
  revoked_by?: unknown;
};

/** An MCP connection (`GET /api/mcp/connections`): an AI client a person approved on the consent screen. */
export type Connection = {
  id: string;
  client_id: string;
  client_name: string;
  /** The forward-auth user who approved it. */
  user: string;
  grants: Grant[];
  created_at: string;
  /** When its access token last authorized a request. */
  last_used_at?: string;
  /** When its current refresh token lapses (moves forward with each refresh). */
  expires_at: string;
  /** Only on revoked connections, listed with `?revoked=true`. */
  revoked_at?: string;
  revoked_reason?: string;
};

export type SiteEvent = { type: string; at: string; actor: unknown; data?: Record<string, unknown> };

export type PublishResult = { url: string; group: string; slug: string; updated_at: string; revision: string; site: Site };

/** `GET /api/sites/{path}/revisions/{a}/diff/{b}` (spec §12): `from`/`to` are resolved ids, lists sorted by path. */
export type RevisionDiff = {
  from: string;
  to: string;
  added: { path: string; size: number }[];
  removed: { path: string; size: number }[];
  changed: { path: string; size_before: number; size_after: number }[];
  unchanged: number;
  /** Added files plus the new sizes of changed files. */
  bytes_added: number;
  /** Removed files plus the old sizes of changed files. */
  bytes_removed: number;
};

/** `GET /api/sites/{path}/revisions` with its storage figures: every kept revision's size against what the shared store holds for them. */
export type SiteStorage = { revisions: Revision[]; logical_bytes: number; stored_bytes: number };

/** `GET /api/storage` (admins): the same for the whole service. */
export type ServiceStorage = { sites: number; revisions: number; logical_bytes: number; stored_bytes: number };

/** One event of the service's activity log (`GET /api/events`, spec §16). */
export type Activity = { id: string; type: string; at: string; actor: unknown; site?: string; data: Record<string, unknown> };
export type ActivityPage = { events: Activity[]; next?: string };
/** The filters of the activity view, as the query names them. */
export type ActivityFilters = { actor?: string; type?: string; site?: string; since?: string; until?: string };

export type WebhookType =
  | 'site.published'
  | 'site.patched'
  | 'site.rolled_back'
  | 'site.unpublished'
  | 'site.restored'
  | 'site.purged'
  | 'preview.published'
  | 'preview.removed'
  | 'key.issued'
  | 'key.revoked'
  | 'connection.granted'
  | 'connection.revoked';

export type Webhook = { id: string; url: string; events: WebhookType[]; target: string; description?: string; created_at: string; created_by: unknown };

export type Delivery = {
  id: string;
  type: WebhookType;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status?: number;
  last_error?: string;
  created_at: string;
  next_attempt_at?: string;
  last_attempt_at?: string;
  event: string;
  site?: string;
};
