/**
 * The metadata-document cache with an injected clock and a scripted outbound port: how long
 * a document is reused under each caching header, and that the cache stays bounded.
 */
import { describe, expect, it } from 'vitest';
import type { OutboundHttp, OutboundRequest } from '../../domain/ports.ts';
import { checkClientIdUrl, createMetadataClients } from '../../mcp/sites/oauth/client-metadata.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** Answers every URL with a valid document and the given headers; counts fetches per URL. */
function scripted(headers: Record<string, string>) {
  const fetched: string[] = [];
  const outbound: OutboundHttp = {
    check: async () => undefined,
    request: async (req: OutboundRequest) => {
      fetched.push(req.url);
      expect(req.maxBytes).toBe(5 * 1024);
      expect(req.timeoutMs).toBeLessThanOrEqual(5_000);
      const body = new TextEncoder().encode(JSON.stringify({ client_id: req.url, redirect_uris: ['https://host.example/cb'] }));
      return { ok: true, response: { status: 200, headers, body } };
    },
  };
  return { outbound, fetched };
}

describe('client metadata cache (injected clock)', () => {
  const url = 'https://host.example/client.json';
  const reuse = async (headers: Record<string, string>, after: number[]) => {
    let now = Date.parse('2026-05-01T08:00:00Z');
    const { outbound, fetched } = scripted({ date: new Date(now).toUTCString(), ...headers });
    const clients = createMetadataClients(outbound, () => now);
    const start = now;
    for (const t of after) {
      now = start + t;
      expect((await clients.find(url, 'admin')).ok).toBe(true);
    }
    return fetched.length;
  };

  it('max-age is respected', async () => {
    expect(await reuse({ 'cache-control': 'max-age=600' }, [0, 9 * MIN, 11 * MIN])).toBe(2);
  });
  it('no-store and no-cache are fetched every time; max-age=0 too', async () => {
    for (const cc of ['no-store', 'no-cache', 'max-age=0']) expect(await reuse({ 'cache-control': cc }, [0, 1, 2]), cc).toBe(3);
  });
  it('without caching headers a document is reused for 5 minutes', async () => {
    expect(await reuse({}, [0, 4 * MIN, 6 * MIN])).toBe(2);
  });
  it('never beyond 24 hours, whatever the headers say', async () => {
    expect(await reuse({ 'cache-control': 'max-age=31536000, immutable' }, [0, 23 * HOUR, 25 * HOUR])).toBe(2);
  });
  it('keeps at most 256 documents, dropping the least recently used', async () => {
    const { outbound, fetched } = scripted({ 'cache-control': 'max-age=3600' });
    const clients = createMetadataClients(outbound, () => 0, { fetchesPerMinute: 1000 });
    for (let i = 0; i < 300; i++) await clients.find(`https://host.example/c/${i}.json`, 'admin');
    expect(clients.size).toBe(256);
    await clients.find('https://host.example/c/299.json', 'admin'); // still cached
    expect(fetched.length).toBe(300);
    await clients.find('https://host.example/c/0.json', 'admin'); // dropped, fetched again
    expect(fetched.length).toBe(301);
  });
  it('concurrent requests for one document share one fetch', async () => {
    const { outbound, fetched } = scripted({ 'cache-control': 'no-store' });
    const clients = createMetadataClients(outbound, () => 0);
    await Promise.all([clients.find(url, 'admin'), clients.find(url, 'bob'), clients.find(url, 'admin')]);
    expect(fetched.length).toBe(1);
  });
});

describe('client_id URL', () => {
  it('is https with a path, without user info, fragment or dot segments', () => {
    expect(checkClientIdUrl('https://vscode.dev/oauth/client-metadata.json')).toBeUndefined();
    expect(checkClientIdUrl('https://host.example:8443/c?v=1')).toBeUndefined();
    for (const bad of ['http://host.example/c', 'https://host.example', 'https://host.example/', 'https://u@host.example/c', 'https://host.example/c#f', 'https://host.example/a/../c', 'https://host.example/./c', 'https://host.example/a/%2E%2E/c', 'not a url', `https://host.example/${'a'.repeat(2001)}`]) {
      expect(checkClientIdUrl(bad), bad).toBeDefined();
    }
  });
});
