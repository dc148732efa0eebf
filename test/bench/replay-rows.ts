/**
 * What a replay's commit costs per site, part by part: the rows a batch into an empty read
 * model writes for each site (host/readmodel/sqlite-write.ts), each part alone in a
 * transaction of its own on a new file next to the data dir (the same disk), with the read
 * model's own statements; then the site indexes built after them, and the same `sites` rows
 * copied inside SQLite (no JavaScript, no bindings: SQLite's own floor). The documents are
 * those of a projected read model (DATA_DIR/readmodel.sqlite, left by replay-child.ts).
 * Prints one JSON line: microseconds per site for each part.
 * Run as `node --import tsx test/bench/replay-rows.ts DATA_DIR`.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SiteDoc } from '../../projections/documents.ts';
import { previewExpiry, retainedRevisions, siteIndexFields } from '../../host/readmodel/derive.ts';
import { SCHEMA, SITE_INDEXES } from '../../host/readmodel/sqlite-schema.ts';
import { prepareStatements } from '../../host/readmodel/sqlite-statements.ts';

const [dataDir] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: replay-rows.ts DATA_DIR');
const source = join(dataDir, 'readmodel.sqlite');
const docs = (() => {
  const db = new Database(source, { readonly: true });
  try {
    return db.prepare<[], { revision: number; doc: string }>('SELECT revision, doc FROM sites ORDER BY stream').all().map((r) => ({ revision: r.revision, doc: JSON.parse(r.doc) as SiteDoc }));
  } finally {
    db.close();
  }
})();
if (docs.length === 0) throw new Error(`${source} holds no site: replay it first (replay-child.ts)`);

const dir = mkdtempSync(join(dirname(dataDir), 'replay-rows-'));
const db = new Database(join(dir, 'readmodel.sqlite'));
const perSite: Record<string, number> = {};
try {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  for (const index of SITE_INDEXES) db.exec(`DROP INDEX ${index.name}`);
  const s = prepareStatements(db);
  const fields = docs.map(({ doc }) => siteIndexFields(doc));
  const record = (part: string, since: number): void => {
    perSite[part] = Math.round(((performance.now() - since) * 10_000) / docs.length) / 10;
  };
  const timed = (part: string, fn: () => void): void => {
    const t0 = performance.now();
    db.transaction(fn).immediate();
    record(part, t0);
  };
  const t0 = performance.now();
  const json = docs.map(({ doc }) => JSON.stringify(doc));
  record('JSON.stringify', t0);
  const site = (i: number, doc: SiteDoc, text: string) => {
    const f = fields[i]!;
    s.putSite.run(doc.stream, docs[i]!.revision, doc.path, doc.group, doc.slug, f.titleLc, f.descriptionLc, f.date, f.date === '' ? 1 : 0, f.hidden ? 1 : 0, doc.status, doc.updatedAt, doc.deletedAt ?? null, previewExpiry(doc), text);
  };
  timed('sites row, document empty', () => docs.forEach(({ doc }, i) => site(i, doc, '')));
  db.exec('DELETE FROM sites');
  timed('sites row', () => docs.forEach(({ doc }, i) => site(i, doc, json[i]!)));
  timed('streams row', () => docs.forEach(({ doc, revision }) => s.putStream.run(doc.stream, 'site', revision)));
  timed('tags', () => docs.forEach(({ doc }, i) => fields[i]!.tags.forEach((tag, j) => s.putTag.run(doc.stream, tag, fields[i]!.tagsLc[j]))));
  timed('retained revisions', () => docs.forEach(({ doc }) => retainedRevisions(doc).forEach((r) => s.putRevision.run(doc.stream, r.id, r.manifest, r.favicon))));
  timed('site indexes built', () => SITE_INDEXES.forEach((index) => db.exec(index.sql)));
  db.exec(`ATTACH DATABASE '${source.replaceAll("'", "''")}' AS source`);
  db.exec(db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_schema WHERE name = 'sites'").get()!.sql.replace('CREATE TABLE sites', 'CREATE TABLE main.sites_copy'));
  timed('sites rows copied inside SQLite', () => db.exec('INSERT INTO main.sites_copy SELECT * FROM source.sites ORDER BY stream'));
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ sites: docs.length, microsecondsPerSite: perSite })}\n`);
