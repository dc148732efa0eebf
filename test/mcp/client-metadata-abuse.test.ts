/**
 * The metadata-document fetch as a published page would abuse it (spec §2: every site is
 * same-site with the apex and hostile). The approver's browser carries their sign-in to
 * the apex on any request a site page makes it send: an image, a script, a frame, a fetch,
 * a prefetch. None of those may make the service fetch a document; a top-level visit (what
 * an MCP host sends the user to) still does. And the fetches a signed-in user can cause are
 * bounded: 10 a minute each, 4 at once for everyone.
 */
import '../support/localhost-dns.ts';
import { createHash, randomBytes } from 'node:crypto';
import { request, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentServer } from '../support/metadata-docs.ts';
import { startService, type RunningService } from '../support/service.ts';
import { createTestPki } from '../support/tls.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** Chromium's Fetch Metadata for what a page can make a browser load. */
const LOADS: Record<string, Record<string, string>> = {
  '<img> on a site page': { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' },
  '<img> on another site': { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' },
  '<script>': { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'script' },
  '<iframe>': { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' },
  "fetch(…, { mode: 'no-cors', credentials: 'include' })": { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'empty' },
  'a header naming only the site and mode': { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' },
  '<link rel="prefetch">': { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'empty', 'Sec-Purpose': 'prefetch' },
  'speculation rules prerender': { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document', 'Sec-Purpose': 'prefetch;prerender' },
};

/** What a person opening the page sends. */
const VISITS: Record<string, Record<string, string>> = {
  'a host web page navigating the browser (cross-site)': { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-User': '?1' },
  'a desktop host opening the browser (none)': { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
  'back from the sign-in proxy on a sibling host (same-site)': { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
  'a browser without Fetch Metadata': {},
};

describe('metadata-document fetches a site page could cause', () => {
  const docs = new DocumentServer();
  let svc: RunningService;

  const authorizeUrl = (clientId: string) =>
    `${svc.url}/mcp/oauth/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;
  /** A GET with exactly these headers (Node's fetch would replace Sec-Fetch-Mode with its own `cors`). */
  const open = (clientId: string, user: string, headers: Record<string, string> = VISITS['a host web page navigating the browser (cross-site)']!) =>
    new Promise<{ status: number; location?: string; text: string }>((resolve, reject) => {
      request(authorizeUrl(clientId), { headers: { 'Remote-User': user, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, text: Buffer.concat(chunks).toString() }));
      })
        .on('error', reject)
        .end();
    });
  const doc = (path: string, headers?: Record<string, string>) => docs.json(path, (url) => ({ client_id: url, client_name: 'Agent', redirect_uris: [REDIRECT] }), headers);

  beforeAll(async () => {
    const pki = await createTestPki();
    await docs.start(pki);
    svc = await startService({
      env: { NODE_EXTRA_CA_CERTS: pki.caFile, SITES_OAUTH_ALLOW_PRIVATE_METADATA: 'true', SITES_MCP_ALLOWED_USERS: 'admin,ops,dev,qa,sec,loader,visitor' },
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([svc?.stop(), docs.stop()]);
  });

  it('attack: a page makes the approver\'s browser load the consent URL (image, script, frame, fetch, prefetch) → error page, nothing fetched', async () => {
    const path = '/oauth/loaded.json';
    const clientId = doc(path, { 'Cache-Control': 'no-store' });
    for (const [how, headers] of Object.entries(LOADS)) {
      const res = await open(clientId, 'loader', headers);
      expect(res.status, how).toBe(403);
      expect(res.location, how).toBeUndefined();
      expect(res.text, how).toMatch(/loaded by another page[^<]*not opened in the browser/);
      expect(docs.count(path), how).toBe(0);
    }
  });

  it('a person opening it still gets the consent page, whichever way the host sent them', async () => {
    const path = '/oauth/visited.json';
    const clientId = doc(path, { 'Cache-Control': 'no-store' });
    for (const [how, headers] of Object.entries(VISITS)) {
      const res = await open(clientId, 'visitor', headers);
      expect(res.status, how).toBe(200);
      expect(res.text, how).toContain('Agent');
    }
    expect(docs.count(path)).toBe(Object.keys(VISITS).length);
  });

  it('attack: a new query string each time gets past the cache; one approver causes at most 10 fetches a minute (429), others are not slowed', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => doc(`/oauth/varied.json?n=${i}`));
    const statuses: number[] = [];
    for (const id of ids) statuses.push((await open(id, 'ops')).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    expect(docs.hits.filter((h) => h.startsWith('/oauth/varied.json')).length).toBe(10);
    const refused = await open(ids[11]!, 'ops');
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/ops asked for more than 10 applications&#39; metadata documents in the last minute\. Reload this page in \d+ seconds/);
    // A cached document costs nothing, and another approver has their own allowance.
    expect((await open(ids[0]!, 'ops')).status).toBe(200);
    expect((await open(ids[11]!, 'dev')).status).toBe(200);
  });

  it('attack: documents that never arrive hold at most 4 fetches; a fifth is refused at once (503), not queued', async () => {
    const held: { path: string; res: ServerResponse }[] = [];
    const body = (path: string) => JSON.stringify({ client_id: docs.url(path), redirect_uris: [REDIRECT] });
    const paths = Array.from({ length: 5 }, (_, i) => `/oauth/slow-${i}.json`);
    for (const p of paths) docs.routes.set(p, (_req, res) => void held.push({ path: p, res }));
    const users = ['admin', 'dev', 'qa', 'sec'];
    const waiting = paths.slice(0, 4).map((p, i) => open(docs.url(p), users[i]!));
    while (held.length < 4) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    const fifth = await open(docs.url(paths[4]!), 'visitor');
    expect(fifth.status).toBe(503);
    expect(fifth.text).toMatch(/fetching other applications&#39; metadata documents right now/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(docs.count(paths[4]!)).toBe(0);
    for (const { path, res } of held) res.writeHead(200, { 'Content-Type': 'application/json' }).end(body(path));
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Freed: the fifth goes through now.
    docs.routes.set(paths[4]!, (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(body(paths[4]!)));
    expect((await open(docs.url(paths[4]!), 'visitor')).status).toBe(200);
  });
});
