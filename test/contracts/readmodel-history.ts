/**
 * A long, varied, deterministic event history for the batch tests: many sites living
 * through publishes, archives, dropped revisions, rollbacks, patches (tags, title, date and
 * visibility change), quarantine, restore, purge and a new incarnation; keys, connections
 * and OAuth clients beside them. Events come in appends (the events one command appends
 * together), as an event store holds them.
 */
import type { DomainEvent, SiteMeta } from '../../domain/events.ts';
import { prng } from '../bench/support.ts';
import {
  archived,
  clientRegistered,
  clientUsed,
  connectionGranted,
  connectionRefreshed,
  connectionRevoked,
  connectionUsed,
  dropped,
  eventLog,
  keyIssued,
  keyRevoked,
  keyUsed,
  patched,
  published,
  purged,
  quarantined,
  restored,
  revision,
  rolledBack,
  streamOfPath,
  type EventLog,
} from './readmodel-events.ts';

export type Append = { readonly stream: string; readonly events: readonly DomainEvent[] };

type SiteState = { siteId: number; status: 'absent' | 'live' | 'quarantined'; live: string; archived: string[]; n: number };

const TAGS = ['red', 'green', 'blue', 'Cyan', 'magenta', 'yellow'];
const WORDS = ['alpha', 'bravo', 'Charlie', 'delta', 'écho', 'foxtrot'];


/** `rounds` rounds over `sites` sites (plus a few keys, connections and clients), from `seed`. */
export function history(sites: number, rounds: number, seed = 1): Append[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const chance = (p: number) => rand() < p;
  const metaOf = (i: number, round: number): SiteMeta => ({
    title: `${pick(WORDS)} ${pick(WORDS)} ${i}`,
    hidden: chance(0.1),
    ...(chance(0.5) ? { description: `Site ${i}, round ${round} ${pick(WORDS)}` } : {}),
    ...(chance(0.6) ? { date: `2025-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 10)}` } : {}),
    ...(chance(0.8) ? { tags: TAGS.filter(() => chance(0.3)) } : {}),
  });
  const paths = Array.from({ length: sites }, (_, i) => (i % 5 === 0 ? `s${i}` : `g${i % 7}/sub${i % 3}/s${i}`));
  const state: SiteState[] = paths.map(() => ({ siteId: 0, status: 'absent', live: '', archived: [], n: 0 }));
  let nextId = 1;
  const out: Append[] = [];
  const site = (i: number, events: DomainEvent[]) => out.push({ stream: streamOfPath(paths[i]!), events });
  const newRevision = (i: number) => {
    const s = state[i]!;
    const id = `r${i}-${s.n++}`;
    return revision(id, { manifest: chance(0.2) ? `shared-${Math.floor(rand() * 5)}` : `m-${id}`, ...(chance(0.3) ? { favicon: `f-${id}` } : {}) });
  };

  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < sites; i++) {
      const s = state[i]!;
      if (s.status === 'absent') {
        if (round > 0 && chance(0.3)) continue;
        s.siteId = nextId++;
        const rev = newRevision(i);
        site(i, [published(paths[i]!, s.siteId, rev, metaOf(i, round), true)]);
        Object.assign(s, { status: 'live', live: rev.id, archived: [] });
        continue;
      }
      if (s.status === 'quarantined') {
        if (chance(0.5)) {
          site(i, [restored(s.siteId)]);
          s.status = 'live';
        } else {
          site(i, [purged(s.siteId, [s.live, ...s.archived].map((id) => ({ id, manifest: `m-${id}` })))]);
          Object.assign(s, { status: 'absent', live: '', archived: [] });
        }
        continue;
      }
      const roll = rand();
      if (roll < 0.45) {
        // Republish: the live revision is archived, the oldest archived one dropped past two.
        const rev = newRevision(i);
        const events: DomainEvent[] = [archived(s.siteId, s.live), published(paths[i]!, s.siteId, rev, metaOf(i, round), false)];
        s.archived.unshift(s.live);
        s.live = rev.id;
        if (s.archived.length > 2) events.push(dropped(s.siteId, s.archived.pop()!));
        site(i, events);
      } else if (roll < 0.65) {
        site(i, [patched(s.siteId, metaOf(i, round))]);
      } else if (roll < 0.75 && s.archived.length > 0) {
        const to = s.archived[0]!;
        site(i, [rolledBack(s.siteId, to, s.live)]);
        s.archived = [s.live, ...s.archived.slice(1)];
        s.live = to;
      } else if (roll < 0.85) {
        site(i, [quarantined(s.siteId)]);
        s.status = 'quarantined';
      }
    }
    for (let k = 0; k < 5; k++) {
      const stream = `key-${k}`;
      if (round === 0) out.push({ stream, events: [keyIssued(k, `token-${k}`, { admin: k === 0 })] });
      else if (round === rounds - 1 && k === 3) out.push({ stream, events: [keyRevoked(k)] });
      // Uses on the key's own stream in even rounds, as logs did before usage streams; on its usage stream in odd ones.
      else out.push({ stream: round % 2 ? `keyuse-${k}` : stream, events: [keyUsed(k, `2026-03-0${1 + (round % 9)}T00:00:00.000Z`)] });
    }
    for (let c = 0; c < 3; c++) {
      const id = `x${c}`;
      if (round === 0) {
        out.push({ stream: `oauthclient-c${c}`, events: [clientRegistered(`c${c}`)] });
        out.push({ stream: `connection-${id}`, events: [connectionGranted(id, `c${c}`, `rt-${c}-0`)] });
        out.push({ stream: `oauthclient-c${c}`, events: [clientUsed(`c${c}`, id)] });
      } else if (round === rounds - 1 && c === 1) {
        out.push({ stream: `connection-${id}`, events: [connectionRevoked(id)] });
      } else {
        out.push({ stream: `connection-${id}`, events: [connectionRefreshed(id, `rt-${c}-${round}`, `rt-${c}-${round - 1}`), connectionUsed(id, `2026-03-0${1 + (round % 9)}T00:00:00.000Z`)] });
      }
    }
  }
  out.push({ stream: 'sequence-site', events: Array.from({ length: nextId - 1 }, (_, k) => ({ type: 'IdAllocated', data: { id: k + 1 } }) as DomainEvent) });
  return out;
}

/** The appends recorded in a fresh log (positions and revisions as an event store gives them). */
export function recordAll(appends: readonly Append[]): EventLog {
  const log = eventLog();
  for (const a of appends) for (const e of a.events) log.add(a.stream, e);
  return log;
}

/** Every manifest and favicon hash the history names, for `referencedBlobs`. */
export function blobsOf(appends: readonly Append[]): string[] {
  const found = new Set<string>();
  for (const a of appends) {
    for (const e of a.events) {
      if (e.type !== 'SitePublished') continue;
      found.add(e.data.revision.manifest);
      if (e.data.revision.favicon) found.add(e.data.revision.favicon.hash);
    }
  }
  return [...found].sort();
}
