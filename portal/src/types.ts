/** The management API's resources, as in shared/spec/sites-api.md §3 and §5. */

export type Me = {
  user: string;
  is_admin: boolean;
  base_domain: string;
  versioning_enabled: boolean;
  mcp_enabled: boolean;
};

export type Site = {
  id: number;
  group: string;
  slug: string;
  title: string;
  description?: string;
  date?: string;
  tags?: string[];
  repo?: string;
  preview?: string;
  hidden: boolean;
  size: number;
  has_favicon?: boolean;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
  url?: string;
};

export type TreeNode = {
  name: string;
  path: string;
  site?: Site;
  groups?: TreeNode[];
  sites?: Site[];
};

export type SiteList = { sites: Site[]; tree: TreeNode; count: number };

export type Revision = { id: string; current: boolean; created_at: string; size: number; files: number };

export type FileNode = { name: string; path: string; dir: boolean; size?: number; children?: FileNode[] };

export const CAPABILITIES = ['publish', 'unpublish', 'rollback', 'patch', 'purge'] as const;
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
  last_refreshed_at?: string;
  /** False while the authorization code is not exchanged yet, and once revoked. */
  active: boolean;
  revoked: boolean;
  revoked_at?: string;
  revoked_reason?: string;
};

export type SiteEvent = { type: string; at: string; actor: unknown; data?: Record<string, unknown> };

export type PublishResult = { url: string; group: string; slug: string; updated_at: string; revision: string; site: Site };
