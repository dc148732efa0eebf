import CachePolicy from 'http-cache-semantics';
import { isMetadataDocumentClientId } from '../../../domain/oauth-client/client-id.ts';
import type { OutboundHttp } from '../../../domain/ports.ts';
import type { AuthClient, ClientLookup } from './authorize-request.ts';
import { createRateLimiter } from './rate-limit.ts';
import { checkRedirectUri } from './redirect-uris.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP
 * authorization 2025-11-25): a client's `client_id` is the https URL of a JSON document that
 * describes it. The document is fetched through the service's outbound client (https only,
 * no redirects, public addresses only unless SITES_OAUTH_ALLOW_PRIVATE_METADATA), must name
 * that very URL as its `client_id`, and gives the client's name and redirect URIs.
 */

/** The most a document may weigh. The draft suggests 5 KB; real ones are well under 1 KB. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** How long a fetch may take: a person is waiting for the consent page. */
export const FETCH_TIMEOUT_MS = 5_000;
/** A document served without caching headers is reused for this long. */
const DEFAULT_TTL_MS = 5 * 60_000;
/** Whatever its headers say, a document is fetched again after this long. */
const MAX_TTL_MS = 24 * 3_600_000;
/** Documents kept at once (least recently used dropped first). */
const MAX_ENTRIES = 256;
const MAX_URL_LENGTH = 2000;
/**
 * Fetches one signed-in user may cause a minute (cache hits and joining a fetch in flight
 * do not count): a page of a published site can make an approver's browser ask for the
 * consent page (spec §2), and a varying query string would get past the cache.
 */
const FETCHES_PER_MINUTE = 10;
/** Documents fetched at once for everyone together; one more is refused at once, not queued. */
const CONCURRENT_FETCHES = 4;
const MAX_REDIRECT_URIS = 20;

/** Why a `client_id` URL cannot be a metadata document's address, or undefined when it can. */
export function checkClientIdUrl(raw: string): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return 'The application\'s client_id URL is too long.';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The application\'s client_id is not a valid URL.';
  }
  if (url.protocol !== 'https:') return 'The application\'s client_id URL must use https.';
  if (url.username || url.password) return 'The application\'s client_id URL must not carry a user name or password.';
  if (raw.includes('#')) return 'The application\'s client_id URL must not have a fragment.';
  if (url.pathname === '/' || url.pathname === '') return 'The application\'s client_id URL must have a path (the address of its metadata document).';
  // The URL parser removes dot segments; the draft forbids them in the identifier itself.
  const path = raw.slice(raw.indexOf('/', 'https://'.length)).split(/[?]/)[0]!;
  if (path.split('/').some((seg) => /^(?:\.|%2e){1,2}$/i.test(seg))) return 'The application\'s client_id URL must not contain . or .. path segments.';
  return undefined;
}

type Entry = { readonly client: AuthClient; readonly expiresAt: number };
export type MetadataLookup = { ok: true; client: AuthClient } | { ok: false; message: string; status?: 429 | 503 };

const why = (message: string): MetadataLookup => ({ ok: false, message });

/** Reads and checks one document; `url` is the client_id exactly as the request gave it. */
function readDocument(url: string, body: Uint8Array): MetadataLookup {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return why('The application\'s metadata document is not JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return why('The application\'s metadata document is not a JSON object.');
  const d = doc as Record<string, unknown>;
  // Compared as strings (the draft's rule): the document vouches for this exact URL only.
  if (d.client_id !== url) return why(`The application's metadata document names another client_id (${JSON.stringify(String(d.client_id).slice(0, 200))}), not the URL it was fetched from.`);
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined) return why('The application\'s metadata document contains a client secret, which a public document must never hold.');
  if (d.token_endpoint_auth_method !== undefined && d.token_endpoint_auth_method !== 'none') {
    return why(`The application's metadata document asks for token_endpoint_auth_method ${JSON.stringify(String(d.token_endpoint_auth_method).slice(0, 60))}; this server supports public clients (none) only.`);
  }
  // Unlike a registration, a document is written once for every server a host talks to, so
  // grant and response types this server does not offer are ignored, not refused.
  if (Array.isArray(d.grant_types) && !d.grant_types.includes('authorization_code')) return why('The application\'s metadata document does not list the authorization_code grant.');
  if (!Array.isArray(d.redirect_uris) || d.redirect_uris.length === 0) return why('The application\'s metadata document lists no redirect_uris.');
  if (d.redirect_uris.length > MAX_REDIRECT_URIS) return why(`The application's metadata document lists more than ${MAX_REDIRECT_URIS} redirect_uris.`);
  for (const uri of d.redirect_uris) {
    const refusal = checkRedirectUri(uri);
    if (refusal) return why(`The application's metadata document lists a redirect URI this server does not send answers to: ${refusal.description}.`);
  }
  if (d.client_name !== undefined && (typeof d.client_name !== 'string' || d.client_name.trim() === '' || d.client_name.length > 200)) {
    return why('The application\'s metadata document has a client_name that is not a string of 1 to 200 characters.');
  }
  const clientUri = typeof d.client_uri === 'string' && /^https:\/\/[^\s]+$/i.test(d.client_uri) && d.client_uri.length <= 2000 && URL.canParse(d.client_uri) ? d.client_uri : undefined;
  const host = new URL(url).host;
  const name = typeof d.client_name === 'string' ? d.client_name.trim() : host;
  const redirectUris = [...new Set(d.redirect_uris as string[])];
  return { ok: true, client: { clientId: url, name, redirectUris, ...(clientUri ? { clientUri } : {}), metadataHost: host } };
}

/** What a refused fetch means for the person on the consent page. */
function fetchProblem(url: string, reason: string, message: string): string {
  const host = new URL(url).host;
  switch (reason) {
    case 'address':
      return `The application's metadata document at ${host} is on a private or local network address, which this server does not fetch from (an administrator can allow it with SITES_OAUTH_ALLOW_PRIVATE_METADATA=true).`;
    case 'too_large':
      return `The application's metadata document at ${host} is larger than ${MAX_DOCUMENT_BYTES} bytes.`;
    case 'busy':
      return `This server is fetching too many documents at once to fetch the application's metadata document from ${host} now. Reload this page in a moment.`;
    case 'timeout':
      return `The application's metadata document at ${host} did not arrive within ${FETCH_TIMEOUT_MS / 1000} seconds.`;
    default:
      return `The application's metadata document could not be fetched from ${host} (${message}).`;
  }
}

/**
 * The metadata-document clients: fetched on demand, cached as the document's HTTP caching
 * headers allow (http-cache-semantics; none → 5 minutes; never beyond 24 hours; `no-store`
 * and `no-cache` → fetched each time), at most 256 at once. Concurrent requests for one
 * document share one fetch. Failures are not cached: the next try fetches again. Fetches
 * are bounded per requester (10 a minute) and overall (4 at once).
 */
export function createMetadataClients(outbound: OutboundHttp, now: () => number, limits: { fetchesPerMinute?: number; concurrentFetches?: number } = {}) {
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<MetadataLookup>>();
  const perRequester = createRateLimiter({ max: limits.fetchesPerMinute ?? FETCHES_PER_MINUTE, windowMs: 60_000, maxPeers: 1000, now });
  const concurrent = limits.concurrentFetches ?? CONCURRENT_FETCHES;

  async function fetchDocument(url: string): Promise<MetadataLookup> {
    const result = await outbound.request({ url, headers: { accept: 'application/json' }, maxBytes: MAX_DOCUMENT_BYTES, timeoutMs: FETCH_TIMEOUT_MS });
    if (!result.ok) return why(fetchProblem(url, result.refusal.reason, result.refusal.message));
    const { status, headers, body } = result.response;
    if (status >= 300 && status < 400) return why(`The application's metadata document at ${new URL(url).host} redirects elsewhere (HTTP ${status}); it must be served at its client_id URL itself.`);
    if (status !== 200) return why(`The application's metadata document at ${new URL(url).host} answered HTTP ${status}.`);
    const read = readDocument(url, body);
    if (!read.ok) return read;
    const policy = new CachePolicy({ url, method: 'GET', headers: { accept: 'application/json' } }, { status, headers }, { shared: false });
    const explicit = headers['cache-control'] !== undefined || headers.expires !== undefined;
    const ttl = !policy.storable() ? 0 : explicit ? policy.timeToLive() : DEFAULT_TTL_MS;
    if (ttl > 0) {
      cache.delete(url);
      cache.set(url, { client: read.client, expiresAt: now() + Math.min(ttl, MAX_TTL_MS) });
      while (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    }
    return read;
  }

  return {
    /** `requester`: who the document would be fetched for (the signed-in approver). */
    async find(clientId: string, requester: string): Promise<MetadataLookup> {
      const problem = checkClientIdUrl(clientId);
      if (problem) return why(problem);
      const hit = cache.get(clientId);
      if (hit && hit.expiresAt > now()) {
        cache.delete(clientId); // most recently used goes last
        cache.set(clientId, hit);
        return { ok: true, client: hit.client };
      }
      if (hit) cache.delete(clientId);
      let pending = inFlight.get(clientId);
      if (!pending) {
        if (inFlight.size >= concurrent) {
          return { ok: false, status: 503, message: 'This server is fetching other applications\' metadata documents right now. Reload this page in a moment.' };
        }
        const admission = perRequester.admit(requester);
        if (!admission.ok) {
          return {
            ok: false,
            status: 429,
            message: `${requester} asked for more than ${limits.fetchesPerMinute ?? FETCHES_PER_MINUTE} applications' metadata documents in the last minute. Reload this page in ${admission.retryAfterSeconds} seconds.`,
          };
        }
        pending = fetchDocument(clientId).finally(() => inFlight.delete(clientId));
        inFlight.set(clientId, pending);
      }
      return pending;
    },
    /** Documents cached now (tests and metrics). */
    get size(): number {
      return cache.size;
    },
  };
}
export type MetadataClients = ReturnType<typeof createMetadataClients>;

/** The authorization endpoint's clients: metadata documents for URL ids, the registrations otherwise. */
export function anyClient(metadata: MetadataClients, registered: ClientLookup): ClientLookup {
  return (clientId, requester) => (isMetadataDocumentClientId(clientId) ? metadata.find(clientId, requester ?? '') : registered(clientId, requester));
}
