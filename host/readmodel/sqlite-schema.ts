/**
 * Tables of the embedded read model. `streams` holds each stream's last applied revision;
 * its document is stored once, in the table of its kind (`sites`, `keys`, …), next to the
 * query columns derived from it in the same transaction (no row there: no document). `manifest_blobs`, `leases`, `deploys` and
 * `deploy_blobs` are not projected: `reset()` keeps them.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS streams (
  stream   TEXT PRIMARY KEY,
  kind     TEXT NOT NULL,
  revision INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS sites (
  stream      TEXT PRIMARY KEY,
  revision    INTEGER NOT NULL,
  path        TEXT NOT NULL UNIQUE,
  grp         TEXT NOT NULL,
  slug        TEXT NOT NULL,
  title_lc    TEXT NOT NULL,
  desc_lc     TEXT NOT NULL,
  date        TEXT NOT NULL,
  undated     INTEGER NOT NULL,
  hidden      INTEGER NOT NULL,
  status      TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  deleted_at  TEXT,
  -- When its first preview expires (spec §14), or NULL when it has none: the expiry job's range.
  preview_expires TEXT,
  doc         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sites_by_date  ON sites (status, undated, date DESC, updated_at DESC, path);
CREATE INDEX IF NOT EXISTS sites_by_title ON sites (status, title_lc, path);
CREATE INDEX IF NOT EXISTS sites_by_slug  ON sites (status, slug, path);
CREATE INDEX IF NOT EXISTS sites_by_group ON sites (grp);
CREATE INDEX IF NOT EXISTS sites_deleted  ON sites (status, deleted_at DESC);
CREATE INDEX IF NOT EXISTS sites_preview_expiry ON sites (preview_expires, path) WHERE preview_expires IS NOT NULL;

CREATE TABLE IF NOT EXISTS site_tags (
  stream TEXT NOT NULL,
  tag    TEXT NOT NULL,
  tag_lc TEXT NOT NULL,
  PRIMARY KEY (stream, tag)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS site_tags_by_tag ON site_tags (tag);

-- The listing's group tree (projections/site-tree.ts): one row per group holding live sites,
-- rewritten by the batch that changes it; \`version\` is that batch's position key.
CREATE TABLE IF NOT EXISTS site_tree (
  path    TEXT PRIMARY KEY,
  version TEXT NOT NULL,
  doc     TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS site_tree_by_version ON site_tree (version);

-- Custom domains (spec §15): serving and the TLS ask look a site up by one. Not unique on the
-- domain alone: the claim streams keep a domain on one site, and a batch may store the site that
-- gained a domain before the one that lost it.
CREATE TABLE IF NOT EXISTS site_domains (
  domain TEXT NOT NULL,
  stream TEXT NOT NULL,
  PRIMARY KEY (domain, stream)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS site_domains_by_stream ON site_domains (stream);

CREATE TABLE IF NOT EXISTS keys (
  stream     TEXT PRIMARY KEY,
  id         INTEGER NOT NULL UNIQUE,
  token_hash TEXT NOT NULL,
  doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS keys_by_token ON keys (token_hash);

-- A key's last use, from its usage stream (keyuse-<id>); merged into the key's document when read.
CREATE TABLE IF NOT EXISTS key_usage (
  stream       TEXT PRIMARY KEY,
  key_id       INTEGER NOT NULL UNIQUE,
  last_used_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS connections (
  stream     TEXT PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  doc        TEXT NOT NULL
);

-- A connection's last use, from its usage stream (connectionuse-<id>); merged into the connection's document when read.
CREATE TABLE IF NOT EXISTS connection_usage (
  stream        TEXT PRIMARY KEY,
  connection_id TEXT NOT NULL UNIQUE,
  last_used_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS oauth_clients (
  stream       TEXT PRIMARY KEY,
  client_id    TEXT NOT NULL UNIQUE,
  -- While the client was never used for a consent: when its registration ends (the expiry job's range).
  unused_expires_at TEXT,
  doc          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_clients_unused ON oauth_clients (unused_expires_at, client_id) WHERE unused_expires_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS revisions (
  stream      TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  manifest    TEXT NOT NULL,
  favicon     TEXT,
  PRIMARY KEY (stream, revision_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS revisions_by_manifest ON revisions (manifest);
-- Partial: most revisions have no favicon, and the lookup (favicon = ?) never asks for NULL.
CREATE INDEX IF NOT EXISTS revisions_by_favicon ON revisions (favicon) WHERE favicon IS NOT NULL;

CREATE TABLE IF NOT EXISTS manifest_blobs (
  manifest TEXT NOT NULL,
  blob     TEXT NOT NULL,
  PRIMARY KEY (manifest, blob)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS manifest_blobs_by_blob ON manifest_blobs (blob);

CREATE TABLE IF NOT EXISTS checkpoint (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  position TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);

-- Incremental deploys (spec §10): open for an hour, shared by every process on this file.
CREATE TABLE IF NOT EXISTS deploys (
  id             TEXT PRIMARY KEY,
  status         TEXT NOT NULL,
  manifest       TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  uploaded_bytes INTEGER NOT NULL,
  doc            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deploys_by_expiry ON deploys (expires_at, id);
CREATE INDEX IF NOT EXISTS deploys_by_manifest ON deploys (manifest);

-- The distinct digests of each deploy's manifest; size is set once a required one is uploaded.
CREATE TABLE IF NOT EXISTS deploy_blobs (
  deploy   TEXT NOT NULL,
  hash     TEXT NOT NULL,
  required INTEGER NOT NULL,
  size     INTEGER,
  PRIMARY KEY (deploy, hash)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deploy_blobs_by_hash ON deploy_blobs (hash);
`;

/**
 * Bumped whenever a projected table changes shape. Projected tables can always be rebuilt
 * from the event log, so a file with another version has them dropped and recreated (the
 * checkpoint goes with them, and the projector replays); manifest_blobs, leases and the
 * deploy tables stay. A table that is not projected is simply added (`IF NOT EXISTS`, run
 * at every open), with no bump.
 * 2: oauth_clients.unused_expires_at (expiry of unused OAuth client registrations).
 * 3: streams.doc dropped (each document was stored twice; the kind's table keeps it);
 *    revisions_by_favicon partial (without the NULLs).
 * 4: site documents say who made their last change (updatedBy), key documents who revoked
 *    them and when (revokedAt, revokedBy): the rebuild fills them in from the log.
 *    (key_usage, a key's last use from its usage stream, came with the same version; it alone
 *    would have needed no bump: only usage streams feed it, and no earlier log has one.)
 *    (connection_usage, a connection's last use from its usage stream, came without a bump for
 *    that reason: it is created on open, and only connectionuse-<id> streams, new with it, feed it.)
 *    (site_domains needed none either: only domain events feed it, and no earlier log has one.)
 * 5: site_tree, the listing's group tree kept from the events (the rebuild fills it in).
 * 6: previews and permalinks (spec §14): site documents hold their previews and each
 *    revision's number (counted again from the log for revisions published before), and
 *    sites.preview_expires feeds the preview expiry job.
 */
export const SCHEMA_VERSION = 6;

/**
 * Secondary indexes of the site tables. A batch that fills these tables from empty (a
 * replay, a first start) drops them and builds them after its rows: one sort per index
 * instead of an index insertion per row (about a third of the insert cost).
 */
export const SITE_INDEXES: readonly { readonly name: string; readonly sql: string }[] = [
  ...SCHEMA.matchAll(/^CREATE INDEX IF NOT EXISTS (\w+)\s+ON (?:sites|site_tags|revisions) .*;$/gm),
].map((m) => ({ name: m[1]!, sql: m[0] }));

/** Tables that `reset()` empties: everything projected, and the checkpoint. */
export const PROJECTED_TABLES = ['streams', 'sites', 'site_tags', 'site_domains', 'site_tree', 'keys', 'key_usage', 'connections', 'connection_usage', 'oauth_clients', 'revisions', 'checkpoint'] as const;
