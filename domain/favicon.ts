/**
 * Favicon detection from a published index.html (spec §7). Pure: the caller resolves
 * the chosen candidate against the revision's own files or decodes the data URI.
 * Linear in the size of the HTML (see html-links.ts).
 */
import { linkTags, parseAttributes } from './html-links.ts';

export type FaviconCandidate =
  | { readonly kind: 'data'; readonly type: string; readonly bytes: Buffer }
  | { readonly kind: 'path'; readonly path: string };

type Link = { href: string; type?: string; sizes?: string };

/** Favicon detection reads at most this much of `index.html` (spec §2). */
export const FAVICON_SCAN_BYTES = 512 * 1024;
/** Icon links considered: each may cost a blob read at publish time. */
const MAX_ICON_LINKS = 32;

function parseLinks(html: string): Link[] {
  const links: Link[] = [];
  for (const tag of linkTags(html)) {
    const attrs = parseAttributes(tag);
    const rel = (attrs.rel ?? '').toLowerCase().split(/[ \t\n\f\r]+/);
    if (!rel.includes('icon') || !attrs.href) continue;
    links.push({ href: decodeEntities(attrs.href.trim()), type: attrs.type?.toLowerCase(), sizes: attrs.sizes?.toLowerCase() });
    if (links.length === MAX_ICON_LINKS) break;
  }
  return links;
}

function decodeEntities(s: string): string {
  return s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

function isSvg(link: Link): boolean {
  return link.type === 'image/svg+xml' || /\.svg(?:[?#]|$)/i.test(link.href) || /^data:image\/svg\+xml[;,]/i.test(link.href);
}

/** Largest declared edge (`sizes="32x32 64x64"` → 64; `any` counts as huge; none → 0). */
function declaredSize(link: Link): number {
  if (!link.sizes) return 0;
  if (link.sizes.includes('any')) return Number.MAX_SAFE_INTEGER;
  let best = 0;
  for (const token of link.sizes.split(/\s+/)) {
    const m = /^(\d{1,5})x(\d{1,5})$/.exec(token);
    if (m) best = Math.max(best, Number(m[1]) * Number(m[2]));
  }
  return best;
}

/** Ordered candidates: SVG first, then rasters by declared size (largest first), then `/favicon.ico`. */
export function faviconCandidates(html: string, documentPath = 'index.html'): FaviconCandidate[] {
  const links = parseLinks(html);
  const ordered = [...links.filter(isSvg), ...links.filter((l) => !isSvg(l)).sort((a, b) => declaredSize(b) - declaredSize(a))];
  const out: FaviconCandidate[] = [];
  for (const link of ordered) {
    const c = toCandidate(link, documentPath);
    if (c) out.push(c);
  }
  out.push({ kind: 'path', path: 'favicon.ico' });
  return out;
}

function toCandidate(link: Link, documentPath: string): FaviconCandidate | undefined {
  const href = link.href;
  if (/^data:/i.test(href)) return decodeDataUri(href);
  // External URLs are never fetched (privacy, SSRF): only the site's own files count.
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return undefined;
  const clean = href.split(/[?#]/)[0]!;
  let path: string;
  try {
    path = decodeURIComponent(clean);
  } catch {
    return undefined;
  }
  const base = documentPath.includes('/') ? documentPath.slice(0, documentPath.lastIndexOf('/') + 1) : '';
  const joined = path.startsWith('/') ? path.slice(1) : base + path;
  const segments: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (segments.length === 0) return undefined;
      segments.pop();
    } else segments.push(seg);
  }
  return segments.length ? { kind: 'path', path: segments.join('/') } : undefined;
}

function decodeDataUri(uri: string): FaviconCandidate | undefined {
  const comma = uri.indexOf(',');
  if (comma < 0) return undefined;
  const [mediaType = '', ...params] = uri.slice('data:'.length, comma).split(';');
  const type = (mediaType.trim() || 'text/plain').toLowerCase();
  if (!type.startsWith('image/')) return undefined;
  const isBase64 = params.some((p) => p.trim().toLowerCase() === 'base64');
  const data = uri.slice(comma + 1);
  try {
    const bytes = isBase64 ? Buffer.from(data.replace(/\s+/g, ''), 'base64') : Buffer.from(decodeURIComponent(data), 'utf8');
    return bytes.length > 0 ? { kind: 'data', type, bytes } : undefined;
  } catch {
    return undefined;
  }
}

/** Sniffs an image type from its first bytes, falling back to the given type. */
export function sniffImageType(bytes: Buffer, fallback: string): string {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0]))) return 'image/x-icon';
  if (bytes.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  const head = bytes.subarray(0, 512).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'image/svg+xml';
  return fallback;
}

/** The only types a favicon is stored and served as (spec §2); aliases map onto them. */
const FAVICON_TYPES: ReadonlyMap<string, string> = new Map([
  ['image/png', 'image/png'],
  ['image/x-icon', 'image/x-icon'],
  ['image/vnd.microsoft.icon', 'image/x-icon'],
  ['image/gif', 'image/gif'],
  ['image/jpeg', 'image/jpeg'],
  ['image/jpg', 'image/jpeg'],
  ['image/webp', 'image/webp'],
  ['image/svg+xml', 'image/svg+xml'],
]);

/**
 * A favicon type normalised (case, whitespace, parameters dropped) and allow-listed, or
 * undefined: a padded `image/svg+xml ` must not slip past checks that compare strings.
 */
export function faviconType(raw: string): string | undefined {
  const essence = raw.split(';')[0]!.trim().toLowerCase();
  return FAVICON_TYPES.get(essence);
}
