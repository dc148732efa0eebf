/**
 * Favicon detection from a published index.html (spec §7). Pure: the caller resolves
 * the chosen candidate against the revision's own files or decodes the data URI.
 */
export type FaviconCandidate =
  | { readonly kind: 'data'; readonly type: string; readonly bytes: Buffer }
  | { readonly kind: 'path'; readonly path: string };

type Link = { href: string; type?: string; sizes?: string };

const LINK_TAG = /<link\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
const ATTR = /([a-zA-Z:-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/g;

function parseLinks(html: string): Link[] {
  const links: Link[] = [];
  for (const tag of html.match(LINK_TAG) ?? []) {
    const attrs: Record<string, string> = {};
    for (const m of tag.matchAll(ATTR)) attrs[m[1]!.toLowerCase()] = m[3] ?? m[4] ?? m[5] ?? '';
    const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('icon') || !attrs.href) continue;
    links.push({ href: decodeEntities(attrs.href.trim()), type: attrs.type?.toLowerCase(), sizes: attrs.sizes?.toLowerCase() });
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
  for (const m of link.sizes.matchAll(/(\d+)x(\d+)/g)) best = Math.max(best, Number(m[1]) * Number(m[2]));
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
  const m = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/is.exec(uri);
  if (!m) return undefined;
  const type = (m[1] || 'text/plain').toLowerCase();
  if (!type.startsWith('image/')) return undefined;
  const isBase64 = /;base64/i.test(m[2] ?? '');
  try {
    const bytes = isBase64 ? Buffer.from(m[3]!.replace(/\s+/g, ''), 'base64') : Buffer.from(decodeURIComponent(m[3]!), 'utf8');
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
