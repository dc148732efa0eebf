/**
 * The site's audit events (`GET /api/sites/{path}/events`, oldest first) read as a changelog:
 * short revision labels, one entry per publish or rollback with what changed, day groups,
 * and publishes per day. Pure functions of the events, so they are unit-tested without a browser.
 */
import { formatBytes, formatTime, localDay, plural } from './format.ts';
import type { SiteEvent } from './types.ts';

/** File and byte counts of a change against the revision it replaced (spec §12). Older events may lack them. */
export type Counts = { added: number; changed: number; removed: number; bytesAdded?: number; bytesRemoved?: number };

type Base = { at: string; actor: unknown };

export type ChangelogEntry =
  | (Base & {
      kind: 'publish';
      /** The revision this publish made live. */
      id: string;
      /** The live revision it replaced; absent for a new site. */
      fromId?: string;
      /** A new site (or a new one at an address whose earlier site was purged). */
      created: boolean;
      counts?: Counts;
      /** Change of the live size in bytes, from the counts or else from the revision sizes. */
      netBytes?: number;
      files?: number;
      size?: number;
      /** Revisions this publish pushed out of the kept ones. */
      dropped: string[];
    })
  | (Base & { kind: 'rollback'; id: string; fromId: string; counts?: Counts; netBytes?: number })
  | (Base & { kind: 'note'; type: string; text: string; revisionId?: string })
  /** A preview published (made or updated), removed by someone, or expired (spec §14): beside the live site, never changing it. */
  | (Base & { kind: 'preview'; type: 'PreviewPublished' | 'PreviewRemoved' | 'PreviewExpired'; name: string; created?: boolean; counts?: Counts; revisionId?: string });

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function countsOf(d: Record<string, unknown>): Counts | undefined {
  const added = num(d.filesAdded);
  const changed = num(d.filesChanged);
  const removed = num(d.filesRemoved);
  if (added === undefined && changed === undefined && removed === undefined) return undefined;
  return { added: added ?? 0, changed: changed ?? 0, removed: removed ?? 0, bytesAdded: num(d.bytesAdded), bytesRemoved: num(d.bytesRemoved) };
}

/**
 * The number of each revision, as spec §14 defines `Revision.number` (and the permalinks
 * `v7--app.docs.<base>` use it): 1 for the first publish of the site, one more for each new
 * revision; a rollback makes an older revision live again and makes no number; a purge ends
 * the count and the site published anew at that address starts again at 1.
 *
 * The one place the portal numbers revisions. A revision that carries `number` (once the
 * service sends it) is taken at its word. Until then the numbers are counted here from the
 * site's events, in order of publication; without the events (viewers: the history is for
 * admins) there is no number, since the kept revisions alone cannot say how many were
 * dropped before them, and the labels fall back to the publish time.
 */
export function revisionNumbers(revisions: readonly { id: string; number?: unknown }[], events?: readonly SiteEvent[]): Map<string, number> | undefined {
  const numbers = new Map<string, number>();
  let count = 0;
  for (const e of events ?? []) {
    if (e.type === 'SitePurged') count = 0;
    if (e.type !== 'SitePublished') continue;
    const id = str((e.data?.revision as { id?: unknown } | undefined)?.id);
    if (id && !numbers.has(id)) numbers.set(id, ++count);
  }
  for (const r of revisions) if (typeof r.number === 'number' && Number.isInteger(r.number)) numbers.set(r.id, r.number);
  return events || numbers.size > 0 ? numbers : undefined;
}

type Meta = { title?: string; description?: string; date?: string; tags?: string[]; repo?: string; preview?: string; hidden?: boolean };
const META_WORDS: [keyof Meta, string][] = [
  ['title', 'title'],
  ['description', 'description'],
  ['date', 'date'],
  ['tags', 'tags'],
  ['repo', 'repository'],
  ['preview', 'preview image'],
  ['hidden', 'visibility'],
];

/** "title “Old” → “New”, tags, now hidden": what an edit changed, from the metadata before and after. */
export function describeMetaChange(before: Meta | undefined, after: Meta): string {
  const parts: string[] = [];
  for (const [key, word] of META_WORDS) {
    const a = JSON.stringify(before?.[key] ?? null);
    const b = JSON.stringify(after[key] ?? null);
    if (a === b) continue;
    if (key === 'title' && after.title) parts.push(before?.title ? `title “${before.title}” → “${after.title}”` : `title “${after.title}”`);
    else if (key === 'hidden') parts.push(after.hidden ? 'now hidden' : 'now listed');
    else if (key === 'tags') parts.push(after.tags?.length ? `tags ${after.tags.join(', ')}` : 'tags removed');
    else parts.push(after[key] === undefined ? `${word} removed` : word);
  }
  return parts.length ? `changed ${parts.join('; ')}` : 'no visible change';
}

/** The changelog, newest first. `SiteArchived` is left out: every replacing publish implies it. */
export function buildChangelog(events: readonly SiteEvent[]): ChangelogEntry[] {
  const out: ChangelogEntry[] = [];
  const sizes = new Map<string, number>();
  let live: string | undefined;
  let meta: Meta | undefined;
  let lastPublish: Extract<ChangelogEntry, { kind: 'publish' }> | undefined;
  const sizeDelta = (from: string | undefined, to: string): number | undefined => {
    const after = sizes.get(to);
    if (after === undefined) return undefined;
    if (from === undefined) return after;
    const before = sizes.get(from);
    return before === undefined ? undefined : after - before;
  };
  for (const e of events) {
    const d = e.data ?? {};
    const base = { at: e.at, actor: e.actor };
    switch (e.type) {
      case 'SitePublished': {
        const r = (d.revision ?? {}) as { id?: unknown; files?: unknown; size?: unknown };
        const id = str(r.id);
        if (!id) break;
        const size = num(r.size);
        if (size !== undefined) sizes.set(id, size);
        const created = d.created === true;
        const fromId = created ? undefined : live;
        const counts = countsOf(d);
        const net = counts?.bytesAdded !== undefined && counts.bytesRemoved !== undefined ? counts.bytesAdded - counts.bytesRemoved : sizeDelta(fromId, id);
        lastPublish = { ...base, kind: 'publish', id, fromId, created, counts, netBytes: net, files: num(r.files), size, dropped: [] };
        out.push(lastPublish);
        live = id;
        if (d.meta && typeof d.meta === 'object') meta = d.meta as Meta;
        break;
      }
      case 'SiteRolledBack': {
        const id = str(d.revisionId);
        const fromId = str(d.previousRevisionId) ?? live;
        if (!id || !fromId) break;
        const counts = countsOf(d);
        const net = counts?.bytesAdded !== undefined && counts.bytesRemoved !== undefined ? counts.bytesAdded - counts.bytesRemoved : sizeDelta(fromId, id);
        out.push({ ...base, kind: 'rollback', id, fromId, counts, netBytes: net });
        live = id;
        lastPublish = undefined;
        break;
      }
      case 'RevisionDropped': {
        const id = str(d.revisionId);
        if (!id) break;
        // Dropped by the publish just before it (same command, same moment): told with that publish.
        if (lastPublish && lastPublish.at === e.at) lastPublish.dropped.push(id);
        else out.push({ ...base, kind: 'note', type: e.type, text: 'No longer kept', revisionId: id });
        break;
      }
      case 'SiteArchived':
        break;
      case 'PreviewPublished': {
        const name = str(d.name);
        if (!name) break;
        const revisionId = str((d.revision as { id?: unknown } | undefined)?.id);
        out.push({ ...base, kind: 'preview', type: e.type, name, created: d.created === true, counts: countsOf(d), revisionId });
        break;
      }
      case 'PreviewRemoved':
      case 'PreviewExpired': {
        const name = str(d.name);
        if (!name) break;
        out.push({ ...base, kind: 'preview', type: e.type, name, revisionId: str(d.revisionId) });
        break;
      }
      case 'SitePatched': {
        const after = (d.meta ?? {}) as Meta;
        out.push({ ...base, kind: 'note', type: e.type, text: `Edited metadata: ${describeMetaChange(meta, after)}` });
        meta = after;
        lastPublish = undefined;
        break;
      }
      case 'SiteQuarantined':
        out.push({ ...base, kind: 'note', type: e.type, text: 'Unpublished: taken offline and moved to the Trash' });
        lastPublish = undefined;
        break;
      case 'SiteRestored':
        out.push({ ...base, kind: 'note', type: e.type, text: 'Restored from the Trash: online again' });
        lastPublish = undefined;
        break;
      case 'SitePurged':
        out.push({ ...base, kind: 'note', type: e.type, text: 'Purged: every file and revision destroyed' });
        live = undefined;
        meta = undefined;
        lastPublish = undefined;
        break;
      case 'DomainAttached':
        out.push({ ...base, kind: 'note', type: e.type, text: `Custom domain ${String(d.domain)} attached` });
        break;
      case 'DomainDetached': {
        // An attach that never finished changed nothing anyone saw: not worth a line.
        if (d.reason === 'unfinished') break;
        out.push({ ...base, kind: 'note', type: e.type, text: `Custom domain ${String(d.domain)} detached${d.reason === 'purged' ? ' (the site was purged)' : ''}` });
        break;
      }
      default:
        out.push({ ...base, kind: 'note', type: e.type, text: e.type });
    }
  }
  return out.reverse();
}

/** Entries grouped by the viewer's local day, in the order given (newest first). */
export function groupByDay<T extends { at: string }>(entries: readonly T[]): { day: string; entries: T[] }[] {
  const groups: { day: string; entries: T[] }[] = [];
  for (const e of entries) {
    const day = localDay(e.at);
    const last = groups[groups.length - 1];
    if (last && last.day === day) last.entries.push(e);
    else groups.push({ day, entries: [e] });
  }
  return groups;
}

/**
 * Publishes per local day over the last `days` days ending today (oldest first), for the
 * activity chart. Rollbacks are not publishes and are not counted.
 */
export function publishesPerDay(events: readonly SiteEvent[], days: number, now = Date.now()): { day: string; count: number }[] {
  const today = new Date(now);
  const out: { day: string; count: number }[] = [];
  const index = new Map<string, number>();
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i, 12);
    const day = localDay(d.toISOString());
    index.set(day, out.length);
    out.push({ day, count: 0 });
  }
  for (const e of events) {
    if (e.type !== 'SitePublished') continue;
    const i = index.get(localDay(e.at));
    if (i !== undefined) out[i].count++;
  }
  return out;
}

/** The moment a revision id names (`20261121T101500.123456789Z` → an ISO time), or undefined for anything else. */
export function revisionIso(id: string): string | undefined {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)\.(\d{3})\d*Z$/.exec(id);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z` : undefined;
}

/**
 * The short label of a revision, the same in History, Files, Compare and Storage: `v7` when
 * its number is known (see `revisionNumbers`); otherwise the revision's publish time to the
 * second (`2026-11-21 10:15:03`), with milliseconds when two kept revisions share a second.
 */
export function labeller(numbers: ReadonlyMap<string, number> | undefined, kept: readonly string[] = []): (id: string) => string {
  const bySecond = (id: string) => {
    const iso = revisionIso(id);
    return iso ? formatTime(iso, { seconds: true }) : id;
  };
  // Two kept revisions published within one second (a script publishing twice) would read the same: add milliseconds.
  const seen = new Map<string, number>();
  for (const id of kept) seen.set(bySecond(id), (seen.get(bySecond(id)) ?? 0) + 1);
  return (id) => {
    const n = numbers?.get(id);
    if (n !== undefined) return `v${n}`;
    const label = bySecond(id);
    const iso = revisionIso(id);
    return iso && (seen.get(label) ?? 0) > 1 ? `${label}.${iso.slice(20, 23)}` : label;
  };
}

/**
 * A revision in a picker: its label first, then when it was published to the second (so
 * three revisions published within a minute never read alike), whether it is live, its
 * size and files: `v3 · 2026-11-24 10:15:03 · live · 48 KB · 4 files`.
 */
export function revisionOption(r: { id: string; current: boolean; created_at: string; size: number; files: number }, label: string): string {
  const time = formatTime(r.created_at, { seconds: true });
  const name = label.startsWith(time) ? label : `${label} · ${time}`;
  return `${name}${r.current ? ' · live' : ''} · ${formatBytes(r.size)} · ${plural(r.files, 'file')}`;
}
