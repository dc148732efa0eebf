/** Pure host and API pieces: configuration, CIDRs, Host classification, path resolution, ranges, list queries, memory hints. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../app/contract/parse.ts';
import { SiteQueryParams } from '../../app/contract/site-query.ts';
import { siteQuery } from '../../app/queries/list-sites.ts';

/** `GET /api/sites` parameters as the route reads them and the use case turns them into the read model's query. */
const parseSiteQuery = (query: Record<string, string | string[] | undefined>, admin: boolean) => siteQuery(parseQuery(SiteQueryParams, query), admin);
import { ValidationError } from '../../domain/errors.ts';
import type { Manifest, ManifestEntry } from '../../domain/manifest.ts';
import { handOver } from '../../host/archive/types.ts';
import { ConfigError, inCidrs, loadConfig, parseCidr, parseDuration } from '../../host/config.ts';
import { youngGarbageHint } from '../../host/gc-hint.ts';
import { formatBytes, plural } from '../../host/cli/format.ts';
import { serviceUrl } from '../../host/cli/service-url.ts';
import { classifyHost as classify, type HostNames } from '../../domain/hosts.ts';
import { hostNames, listenHostNames } from '../../host/hosts.ts';
import { parseRange } from '../../host/serve-site.ts';
import { resolvePath } from '../../host/site-resolve.ts';

const MiB = 1024 ** 2;
const HOUR = 3_600_000;

describe('loadConfig', () => {
  it('defaults exactly as spec §8', () => {
    const c = loadConfig({});
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(c.baseDomain).toBe('localhost');
    expect(c.aliasDomains).toEqual([]);
    expect(c.publicScheme).toBe('http');
    expect(c.dataDir).toBe(resolve('./data'));
    expect(c.eventStoreUrl).toBeUndefined();
    expect(c.mongoUrl).toBeUndefined();
    expect(c.s3).toBeUndefined();
    expect(c.forwardAuthHeader).toBe('remote-user');
    expect([...c.adminUsers]).toEqual([]);
    expect(inCidrs('127.0.0.1', c.trustedProxies)).toBe(true);
    expect(inCidrs('::1', c.trustedProxies)).toBe(true);
    expect(inCidrs('127.0.0.2', c.trustedProxies)).toBe(false);
    expect(c.trustedProxies).toHaveLength(2);
    expect(c.maxUploadBytes).toBe(64 * MiB);
    expect(c.maxExtractBytes).toBe(256 * MiB);
    expect(c.maxExtractEntries).toBe(10_000);
    expect(c.versioning).toEqual({ enabled: false, keep: 5 });
    expect(c.deletedSiteTtlMs).toBe(720 * HOUR);
    expect(c.deployTtlMs).toBe(HOUR);
    expect(c.mcp.enabled).toBe(true);
    expect(c.mcp.group).toBe('mcp');
    expect(c.mcp.tokenTtlMs).toBe(HOUR);
    expect(c.mcp.refreshTtlMs).toBe(720 * HOUR);
    expect(c.logLevel).toBe('info');
    expect(c.logFormat).toBe('text');
  });

  it('https for a real apex; MCP allowed users default to the admins', () => {
    const c = loadConfig({ SITES_BASE_DOMAIN: 'Sites.Example.com.', SITES_ADMIN_USERS: 'ann, bob,' });
    expect(c.baseDomain).toBe('sites.example.com');
    expect(c.publicScheme).toBe('https');
    expect([...c.adminUsers]).toEqual(['ann', 'bob']);
    expect([...c.mcp.allowedUsers]).toEqual(['ann', 'bob']);
    expect([...loadConfig({ SITES_ADMIN_USERS: 'ann', SITES_MCP_ALLOWED_USERS: 'carl' }).mcp.allowedUsers]).toEqual(['carl']);
  });

  it('reads explicit values', () => {
    const c = loadConfig({
      SITES_LISTEN_ADDR: '[::1]:9000',
      SITES_ALIAS_DOMAINS: 'a.test, B.test',
      SITES_PUBLIC_SCHEME: 'https',
      SITES_VERSIONING_ENABLED: 'true',
      SITES_VERSIONING_KEEP: '3',
      SITES_DELETED_SITE_TTL: '1h30m',
      SITES_MAX_UPLOAD_BYTES: '1MiB',
      SITES_TRUSTED_PROXIES: '10.0.0.0/8',
      SITES_S3_ENDPOINT: 'http://127.0.0.1:9000',
      SITES_S3_BUCKET: 'b',
      SITES_S3_ACCESS_KEY: 'ak',
      SITES_S3_SECRET_KEY: 'sk',
      SITES_EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
      SITES_MONGO_URL: 'mongodb://127.0.0.1:27017/sites',
    });
    expect(c.listen).toEqual({ host: '::1', port: 9000 });
    expect(c.aliasDomains).toEqual(['a.test', 'b.test']);
    expect(c.versioning).toEqual({ enabled: true, keep: 3 });
    expect(c.deletedSiteTtlMs).toBe(1.5 * HOUR);
    expect(c.maxUploadBytes).toBe(MiB);
    expect(inCidrs('10.1.2.3', c.trustedProxies)).toBe(true);
    expect(inCidrs('127.0.0.1', c.trustedProxies)).toBe(false);
    expect(c.s3).toEqual({ endpoint: 'http://127.0.0.1:9000', bucket: 'b', accessKey: 'ak', secretKey: 'sk' });
    expect(c.eventStoreUrl).toBe('esdb://127.0.0.1:2113?tls=false');
    expect(c.mongoUrl).toBe('mongodb://127.0.0.1:27017/sites');
  });

  it('signs in a local admin only on a loopback-only service', () => {
    expect(loadConfig({ SITES_LOCAL_ADMIN: 'me' })).toMatchObject({ localAdmin: 'me' });
    expect(loadConfig({ SITES_LOCAL_ADMIN: 'me' }).adminUsers.has('me')).toBe(true);
    expect(loadConfig({ SITES_LOCAL_ADMIN: 'me', SITES_LISTEN_ADDR: '[::1]:8080' }).localAdmin).toBe('me');
    expect(() => loadConfig({ SITES_LOCAL_ADMIN: 'me', SITES_LISTEN_ADDR: '0.0.0.0:8080' })).toThrow(/^SITES_LOCAL_ADMIN: allowed only when SITES_LISTEN_ADDR is a loopback address/);
    expect(() => loadConfig({ SITES_LOCAL_ADMIN: 'me', SITES_LISTEN_ADDR: ':8080' })).toThrow(/SITES_LOCAL_ADMIN/);
    expect(() => loadConfig({ SITES_LOCAL_ADMIN: 'two words' })).toThrow(/SITES_LOCAL_ADMIN/);
    expect(loadConfig({}).localAdmin).toBeUndefined();
  });

  it('makes a control domain on another registrable domain one of the apexes', () => {
    const c = loadConfig({ SITES_BASE_DOMAIN: 'example-sites.net', SITES_CONTROL_DOMAIN: 'sites.example.com' });
    expect(c.controlDomain).toBe('sites.example.com');
    expect(c.aliasDomains).toEqual(['sites.example.com']);
    expect(loadConfig({ SITES_BASE_DOMAIN: 'b.test' }).controlDomain).toBe('b.test');
    expect(() => loadConfig({ SITES_CONTROL_DOMAIN: 'not a domain' })).toThrow(/SITES_CONTROL_DOMAIN/);
  });

  const bad: [Record<string, string>, string][] = [
    [{ SITES_DELETED_SITE_TTL: 'forever' }, 'SITES_DELETED_SITE_TTL'],
    [{ SITES_DELETED_SITE_TTL: '0h' }, 'SITES_DELETED_SITE_TTL'],
    [{ SITES_DEPLOY_TTL: 'an hour' }, 'SITES_DEPLOY_TTL'],
    [{ SITES_MCP_TOKEN_TTL: '10' }, 'SITES_MCP_TOKEN_TTL'],
    [{ SITES_MCP_REFRESH_TTL: '1y' }, 'SITES_MCP_REFRESH_TTL'],
    [{ SITES_TRUSTED_PROXIES: '10.0.0.0/33' }, 'SITES_TRUSTED_PROXIES'],
    [{ SITES_TRUSTED_PROXIES: '127.0.0.1,not-an-ip' }, 'SITES_TRUSTED_PROXIES'],
    [{ SITES_TRUSTED_PROXIES: '::1/129' }, 'SITES_TRUSTED_PROXIES'],
    [{ SITES_VERSIONING_KEEP: '0' }, 'SITES_VERSIONING_KEEP'],
    [{ SITES_VERSIONING_KEEP: '-1' }, 'SITES_VERSIONING_KEEP'],
    [{ SITES_VERSIONING_KEEP: 'three' }, 'SITES_VERSIONING_KEEP'],
    [{ SITES_VERSIONING_ENABLED: 'maybe' }, 'SITES_VERSIONING_ENABLED'],
    [{ SITES_PUBLIC_SCHEME: 'ftp' }, 'SITES_PUBLIC_SCHEME'],
    [{ SITES_S3_ENDPOINT: 'http://127.0.0.1:9000', SITES_S3_BUCKET: 'b' }, 'SITES_S3_ACCESS_KEY'],
    [{ SITES_S3_SECRET_KEY: 's', SITES_S3_BUCKET: 'b', SITES_S3_ACCESS_KEY: 'a' }, 'SITES_S3_ENDPOINT'],
    [{ SITES_EVENTSTORE_URL: 'http://127.0.0.1:2113' }, 'SITES_EVENTSTORE_URL'],
    [{ SITES_MONGO_URL: 'postgres://x' }, 'SITES_MONGO_URL'],
    [{ SITES_LISTEN_ADDR: 'localhost' }, 'SITES_LISTEN_ADDR'],
    [{ SITES_LISTEN_ADDR: '127.0.0.1:70000' }, 'SITES_LISTEN_ADDR'],
    [{ SITES_BASE_DOMAIN: 'exa mple.com' }, 'SITES_BASE_DOMAIN'],
    [{ SITES_ALIAS_DOMAINS: 'ok.test,bad..test' }, 'SITES_ALIAS_DOMAINS'],
    [{ SITES_MAX_UPLOAD_BYTES: '64 lots' }, 'SITES_MAX_UPLOAD_BYTES'],
    [{ SITES_MAX_EXTRACT_ENTRIES: '0' }, 'SITES_MAX_EXTRACT_ENTRIES'],
    [{ SITES_LOG_LEVEL: 'loud' }, 'SITES_LOG_LEVEL'],
    [{ SITES_LOG_FORMAT: 'xml' }, 'SITES_LOG_FORMAT'],
    [{ SITES_MCP_GROUP: 'Not A Group' }, 'SITES_MCP_GROUP'],
    [{ SITES_FORWARD_AUTH_HEADER: 'Remote User' }, 'SITES_FORWARD_AUTH_HEADER'],
  ];
  for (const [env, variable] of bad) {
    it(`${JSON.stringify(env)} → ConfigError naming ${variable}`, () => {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(variable);
      expect((error as Error).message).not.toContain('\n');
    });
  }
});

describe('parseDuration', () => {
  it('units, decimals and sums', () => {
    expect(parseDuration('720h', 'X')).toBe(720 * HOUR);
    expect(parseDuration('90m', 'X')).toBe(90 * 60_000);
    expect(parseDuration('45s', 'X')).toBe(45_000);
    expect(parseDuration('250ms', 'X')).toBe(250);
    expect(parseDuration('7d', 'X')).toBe(7 * 24 * HOUR);
    expect(parseDuration('1.5h', 'X')).toBe(1.5 * HOUR);
    expect(parseDuration('1h30m', 'X')).toBe(1.5 * HOUR);
    expect(parseDuration(' 2h ', 'X')).toBe(2 * HOUR);
  });

  it('rejects the unparsable, naming the variable', () => {
    for (const bad of ['', 'h', '10', '-1h', '1h 30m', '1x', 'h1', '0s']) {
      expect(() => parseDuration(bad, 'MY_VAR'), bad).toThrow(ConfigError);
      expect(() => parseDuration(bad, 'MY_VAR'), bad).toThrow(/MY_VAR/);
    }
  });
});

describe('CIDRs', () => {
  it('IPv4 ranges and single addresses', () => {
    const cidrs = [parseCidr('10.0.0.0/8', 'X'), parseCidr('192.168.1.7', 'X')];
    expect(inCidrs('10.255.0.1', cidrs)).toBe(true);
    expect(inCidrs('11.0.0.1', cidrs)).toBe(false);
    expect(inCidrs('192.168.1.7', cidrs)).toBe(true);
    expect(inCidrs('192.168.1.8', cidrs)).toBe(false);
    expect(inCidrs('1.2.3.4', [parseCidr('0.0.0.0/0', 'X')])).toBe(true);
  });

  it('IPv6 ranges', () => {
    const cidrs = [parseCidr('fd00::/8', 'X'), parseCidr('2001:db8::1', 'X')];
    expect(inCidrs('fd12:3456::1', cidrs)).toBe(true);
    expect(inCidrs('fe80::1', cidrs)).toBe(false);
    expect(inCidrs('2001:db8::1', cidrs)).toBe(true);
    expect(inCidrs('2001:db8:0:0:0:0:0:1', cidrs)).toBe(true);
    expect(inCidrs('2001:db8::2', cidrs)).toBe(false);
    expect(inCidrs('::1', [parseCidr('::1', 'X')])).toBe(true);
    expect(inCidrs('::2', [parseCidr('::1', 'X')])).toBe(false);
  });

  it('IPv4-mapped IPv6 peers match IPv4 ranges; families never mix otherwise', () => {
    const v4 = [parseCidr('127.0.0.0/8', 'X')];
    expect(inCidrs('::ffff:127.0.0.1', v4)).toBe(true);
    expect(inCidrs('::ffff:128.0.0.1', v4)).toBe(false);
    expect(inCidrs('::1', v4)).toBe(false);
    expect(inCidrs('127.0.0.1', [parseCidr('::/0', 'X')])).toBe(false);
  });

  it('a trusted proxy written in IPv4-mapped form matches that peer', () => {
    expect(inCidrs('::ffff:127.0.0.1', [parseCidr('::ffff:127.0.0.1', 'X')])).toBe(true);
  });

  it('no peer or garbage never matches', () => {
    const all = [parseCidr('0.0.0.0/0', 'X'), parseCidr('::/0', 'X')];
    expect(inCidrs(undefined, all)).toBe(false);
    expect(inCidrs('', all)).toBe(false);
    expect(inCidrs('localhost', all)).toBe(false);
  });

  it('bad CIDRs throw ConfigError naming the variable', () => {
    for (const bad of ['', 'x', '10.0.0.0/', '10.0.0.0/8x', '10.0.0.0/-1', '10.0.0.0/33', '::/129', '256.0.0.1']) {
      expect(() => parseCidr(bad, 'SITES_TRUSTED_PROXIES'), bad).toThrow(/SITES_TRUSTED_PROXIES/);
    }
  });

  it('a CIDR with a second slash is rejected', () => {
    expect(() => parseCidr('1.2.3.4/8/8', 'SITES_TRUSTED_PROXIES')).toThrow(ConfigError);
  });
});

/** The classifier with the apexes and direct names as separate lists, as these tests were written. */
const classifyHost = (host: string | undefined, apexes: readonly string[], direct: readonly string[] = []) => classify(host, { apexes, direct } satisfies HostNames);

describe('classifyHost', () => {
  const apexes = ['sites.test', 'alias.example'];
  it('the apex and alias apexes, whatever port, case or trailing dot', () => {
    for (const host of ['sites.test', 'SITES.test:8080', 'sites.test.', 'alias.example', 'Alias.Example.:443']) {
      expect(classifyHost(host, apexes), host).toMatchObject({ kind: 'apex' });
    }
  });

  it('site hosts spell the address right to left', () => {
    expect(classifyHost('demo.sites.test', apexes)).toMatchObject({ kind: 'site', address: { group: '', slug: 'demo' } });
    expect(classifyHost('App.Docs.sites.test:8080', apexes)).toMatchObject({ kind: 'site', address: { group: 'docs', slug: 'app' } });
    expect(classifyHost('a.sub.grp.alias.example.', apexes)).toMatchObject({ kind: 'site', address: { group: 'grp/sub', slug: 'a' } });
  });

  it('a leftmost label with -- is a preview or a permalink of the site after the first -- (spec §14)', () => {
    expect(classifyHost('pr-42--app.docs.sites.test', apexes)).toEqual({ kind: 'preview', address: { group: 'docs', slug: 'app' }, name: 'pr-42', apex: 'sites.test' });
    expect(classifyHost('PR-3--Demo.alias.example:8080', apexes)).toEqual({ kind: 'preview', address: { group: '', slug: 'demo' }, name: 'pr-3', apex: 'alias.example' });
    expect(classifyHost('v7--a.sub.grp.sites.test', apexes)).toEqual({ kind: 'permalink', address: { group: 'grp/sub', slug: 'a' }, number: 7, apex: 'sites.test' });
    // Punycode reads the same way: the part before the first -- names a preview (no site label holds --, spec §1).
    expect(classifyHost('xn--bcher-kva.sites.test', apexes)).toMatchObject({ kind: 'preview', name: 'xn', address: { slug: 'bcher-kva' } });
    // Nothing valid on one side of the split, a -- in any other label, a permalink not written canonically.
    for (const host of ['--app.sites.test', 'pr---app.sites.test', 'pr--.sites.test', 'a--b--c.sites.test', 'app.x--y.sites.test', 'v07--app.sites.test', 'v0--app.sites.test', `${'a'.repeat(40)}--${'b'.repeat(30)}.sites.test`]) {
      expect(classifyHost(host, apexes), host).toEqual({ kind: 'unknown' });
    }
  });

  it('an alias apex nested under the base is an apex, and its sites belong to it', () => {
    const nested = ['example.com', 'sites.example.com'];
    expect(classifyHost('sites.example.com', nested)).toMatchObject({ kind: 'apex' });
    expect(classifyHost('a.sites.example.com', nested)).toMatchObject({ kind: 'site', address: { group: '', slug: 'a' } });
  });

  it('a control domain of its own serves no site under it, even beneath an alias (issue 24 item 10)', () => {
    // Sites on usercontent.test, and on the alias example; the portal on portal.example.
    const names = hostNames(loadConfig({ SITES_BASE_DOMAIN: 'usercontent.test', SITES_ALIAS_DOMAINS: 'example', SITES_CONTROL_DOMAIN: 'portal.example' }));
    for (const host of ['portal.example', 'PORTAL.example:443']) expect(classify(host, names), host).toMatchObject({ kind: 'apex' });
    for (const host of ['app.docs.portal.example', 'demo.portal.example:8080', 'a.b.portal.example.']) expect(classify(host, names), host).toEqual({ kind: 'unknown' });
    expect(classify('app.docs.usercontent.test', names)).toMatchObject({ kind: 'site', address: { group: 'docs', slug: 'app' } });
    expect(classify('demo.example', names)).toMatchObject({ kind: 'site', address: { group: '', slug: 'demo' } });
    // A base domain nested under the control domain keeps its sites (the longer apex wins).
    const nested = hostNames(loadConfig({ SITES_BASE_DOMAIN: 'sites.portal.example', SITES_CONTROL_DOMAIN: 'portal.example' }));
    expect(classify('a.sites.portal.example', nested)).toMatchObject({ kind: 'site', address: { group: '', slug: 'a' } });
    expect(classify('a.portal.example', nested)).toEqual({ kind: 'unknown' });
    // Without a control domain of its own, the base domain has its sites as ever.
    expect(classify('app.docs.usercontent.test', hostNames(loadConfig({ SITES_BASE_DOMAIN: 'usercontent.test' })))).toMatchObject({ kind: 'site' });
  });

  it('anything else is unknown', () => {
    for (const host of [undefined, '', 'a.b.c.d.sites.test', 'bücher.sites.test', 'a_b.sites.test', '[::1]:8080', '[::1]', '127.0.0.1:8080', '.sites.test', 'a..b.test', 'bücher.test']) {
      expect(classifyHost(host, apexes), String(host)).toEqual({ kind: 'unknown' });
    }
    // Well-formed names under no apex: no site's, but what a custom domain will be (spec §15).
    for (const host of ['other.test', 'xsites.test', 'Docs.Acme.COM.:443', 'sites-1:8080']) {
      expect(classifyHost(host, apexes), host).toEqual({ kind: 'external', name: host.toLowerCase().replace(/\.?(:\d+)?$/, '') });
    }
  });
});

describe('the listen address as an apex', () => {
  it('the IP literal it listens on, and localhost on loopback; a wildcard bind answers on loopback too', () => {
    expect(listenHostNames('127.0.0.1')).toEqual(['127.0.0.1', 'localhost']);
    expect(listenHostNames('::1')).toEqual(['[::1]', 'localhost']);
    expect(listenHostNames('0:0:0:0:0:0:0:1')).toEqual(['[::1]', 'localhost']);
    expect(listenHostNames('10.0.0.5')).toEqual(['10.0.0.5']);
    expect(listenHostNames('0.0.0.0')).toEqual(['0.0.0.0', 'localhost', '127.0.0.1', '[::1]']);
    expect(listenHostNames('::')).toEqual(['[::]', 'localhost', '127.0.0.1', '[::1]']);
    expect(listenHostNames('sites.internal')).toEqual([]);
  });

  it('classifyHost: the listen names are the apex, whatever port, and never the parent of a site; an IP literal is never a site', () => {
    const apexes = ['sites.test'];
    const direct = [...listenHostNames('127.0.0.1'), ...listenHostNames('::1')];
    for (const host of ['127.0.0.1:8080', '127.0.0.1', '[::1]:8080', '[::1]', '[0:0::1]:8080', 'localhost:8080', 'LOCALHOST', 'sites.test']) {
      expect(classifyHost(host, apexes, direct), host).toMatchObject({ kind: 'apex' });
    }
    for (const host of ['127.0.0.2:8080', '[::2]', '[::1', '[zz]:80', 'a.127.0.0.1']) {
      expect(classifyHost(host, apexes, direct), host).toEqual({ kind: 'unknown' });
    }
    expect(classifyHost('app.docs.localhost:8080', apexes, direct)).toEqual({ kind: 'external', name: 'app.docs.localhost' });
    expect(classifyHost('app.docs.sites.test', apexes, direct)).toMatchObject({ kind: 'site', address: { group: 'docs', slug: 'app' } });
    // With the default base domain localhost, its sites stay sites.
    expect(classifyHost('app.docs.localhost:8080', ['localhost'], listenHostNames('127.0.0.1'))).toMatchObject({ kind: 'site', address: { group: 'docs', slug: 'app' } });
    // An apex that an IPv4 literal ends with does not make the literal a site host.
    expect(classifyHost('127.0.0.1', ['0.1'])).toEqual({ kind: 'unknown' });
    expect(classifyHost('10.0.0.1', ['1'])).toEqual({ kind: 'unknown' });
  });
});

describe('CLI helpers', () => {
  it('the default service URL is http://localhost:8080 (spec §9); SITES_URL, then the port of SITES_LISTEN_ADDR', () => {
    expect(serviceUrl(undefined, {}).href).toBe('http://localhost:8080/');
    expect(serviceUrl(undefined, { SITES_URL: 'https://sites.example.com' }).href).toBe('https://sites.example.com/');
    expect(serviceUrl('http://127.0.0.1:9000', { SITES_URL: 'https://x.test' }).href).toBe('http://127.0.0.1:9000/');
    expect(serviceUrl(undefined, { SITES_LISTEN_ADDR: '127.0.0.1:9000' }).href).toBe('http://localhost:9000/');
    expect(serviceUrl(undefined, { SITES_LISTEN_ADDR: '0.0.0.0:9000' }).href).toBe('http://localhost:9000/');
    expect(serviceUrl(undefined, { SITES_LISTEN_ADDR: '10.0.0.5:9000' }).href).toBe('http://10.0.0.5:9000/');
    expect(() => serviceUrl('localhost:8080', {})).toThrow(/not a URL|only http/);
  });

  it('sizes in decimal units, labelled as such; counts with the right plural', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(48_000)).toBe('48 KB');
    expect(formatBytes(1_000_000)).toBe('1.0 MB');
    expect(formatBytes(3_000_016)).toBe('3.0 MB');
    expect(formatBytes(999_999)).toBe('1.0 MB');
    expect(formatBytes(2_500_000_000)).toBe('2.5 GB');
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(2, 'file')).toBe('2 files');
    expect(plural(0, 'file')).toBe('0 files');
    expect(plural(1200, 'event')).toBe('1200 events');
  });
});

describe('resolvePath', () => {
  const e = (name: string): ManifestEntry => ({ hash: name, size: 1, type: 'text/html' });
  const site: Manifest = {
    files: new Map(['index.html', 'docs/index.html', 'docs/guide.html', 'about.html', 'img/a b.png', '404.html', 'page', 'page.html'].map((p) => [p, e(p)])),
  };
  const bare: Manifest = { files: new Map([['index.html', e('index.html')], ['dir/x.css', e('dir/x.css')]]) };
  const hit = (m: Manifest, path: string, search = '') => {
    const r = resolvePath(m, path, search);
    return r.kind === 'file' ? `${r.status} ${r.entry.hash}` : r.kind === 'redirect' ? `301 ${r.location}` : '404';
  };

  it('index files, exact files and pretty URLs', () => {
    expect(hit(site, '/')).toBe('200 index.html');
    expect(hit(site, '/docs/')).toBe('200 docs/index.html');
    expect(hit(site, '/docs/guide.html')).toBe('200 docs/guide.html');
    expect(hit(site, '/docs/guide')).toBe('200 docs/guide.html');
    expect(hit(site, '/about')).toBe('200 about.html');
    expect(hit(site, '/page')).toBe('200 page');
    expect(hit(site, '/img/a%20b.png')).toBe('200 img/a b.png');
    expect(hit(site, '//docs/./guide.html')).toBe('200 docs/guide.html');
  });

  it('a directory without its slash redirects, keeping the query', () => {
    expect(hit(site, '/docs', '?x=1&y=2')).toBe('301 /docs/?x=1&y=2');
    expect(hit(site, '/img')).toBe('301 /img/');
  });

  it('missing paths get 404.html with status 404, or a plain 404 without one', () => {
    expect(hit(site, '/nope')).toBe('404 404.html');
    expect(hit(site, '/img/')).toBe('404 404.html');
    expect(hit(bare, '/nope')).toBe('404');
    expect(hit(bare, '/dir/')).toBe('404');
  });

  it('traversal never escapes the site, encoded or not', () => {
    for (const path of ['/../index.html', '/docs/../../index.html', '/%2e%2e/index.html', '/docs/%2E%2E/%2e%2e/x', '/..%2findex.html', '/..%5cindex.html', '/a%00b', '/docs\\..\\index.html']) {
      expect(hit(site, path), path).toBe('404 404.html');
    }
  });

  it('bad percent-encoding is a 404, not a crash', () => {
    expect(hit(site, '/%E0%A4%A')).toBe('404 404.html');
    expect(hit(bare, '/%zz')).toBe('404');
  });
});

describe('parseRange', () => {
  it('single, suffix and open-ended ranges', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-200', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=50-', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=99-99', 100)).toEqual({ start: 99, end: 99 });
  });

  it('unsatisfiable ranges', () => {
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=200-300', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  });

  it('multiple, reversed or malformed ranges are ignored (whole file)', () => {
    for (const header of ['bytes=0-1,5-9', 'bytes=9-5', 'bytes=-', 'items=0-9', 'bytes=a-b', 'bytes 0-9']) {
      expect(parseRange(header, 100), header).toBeUndefined();
    }
  });
});

describe('parseSiteQuery', () => {
  it('defaults: sort date, limit 50, offset 0, no hidden', () => {
    expect(parseSiteQuery({}, true)).toEqual({ sort: 'date', includeHidden: false, limit: 50, offset: 0 });
  });

  it('reads every parameter', () => {
    expect(parseSiteQuery({ q: ' docs ', tag: 'x', group: '/grp/sub/', sort: 'title', hidden: 'true', limit: '500', offset: '20' }, true)).toEqual({
      q: 'docs',
      tag: 'x',
      group: 'grp/sub',
      sort: 'title',
      includeHidden: true,
      limit: 500,
      offset: 20,
    });
    expect(parseSiteQuery({ sort: 'slug', hidden: '1' }, true)).toMatchObject({ sort: 'slug', includeHidden: true });
  });

  it('hidden is honoured for admins only', () => {
    expect(parseSiteQuery({ hidden: 'true' }, false).includeHidden).toBe(false);
    expect(parseSiteQuery({ hidden: 'false' }, true).includeHidden).toBe(false);
  });

  it('rejects a search text with a NUL or another control character (MongoDB answered 500 for a NUL), for every adapter', () => {
    for (const q of ['a\u0000b', '\u0000', 'tab\there', 'line\nbreak', 'del\u007f']) {
      expect(() => parseSiteQuery({ q }, true), JSON.stringify(q)).toThrow(ValidationError);
      expect(() => parseSiteQuery({ q }, true)).toThrow(/q must not contain control characters/);
    }
    expect(parseSiteQuery({ q: 'ünïcödé text – fine' }, true).q).toBe('ünïcödé text – fine');
  });

  it('rejects bad values with a ValidationError', () => {
    const bad: Record<string, string | string[]>[] = [
      { limit: '501' },
      { limit: '0' },
      { limit: '-1' },
      { limit: '1.5' },
      { limit: 'ten' },
      { offset: '-1' },
      { offset: 'x' },
      { sort: 'size' },
      { hidden: 'yes' },
      { group: 'Docs' },
      { group: 'a/b/c/d' },
      { q: ['a', 'b'] },
    ];
    for (const query of bad) expect(() => parseSiteQuery(query, true), JSON.stringify(query)).toThrow(ValidationError);
  });
});

describe('youngGarbageHint', () => {
  it('asks for one young collection per full step of input, none before', () => {
    const calls: unknown[] = [];
    const hint = youngGarbageHint(100, (options) => calls.push(options));
    hint(60);
    expect(calls).toEqual([]);
    hint(60); // 120: one step passed
    expect(calls).toEqual([{ type: 'minor' }]);
    hint(99);
    expect(calls).toHaveLength(1);
    hint(1);
    expect(calls).toHaveLength(2);
  });

  it('does nothing when the process has no exposed gc', () => {
    const hint = youngGarbageHint(1, undefined);
    expect(() => hint(10_000)).not.toThrow();
  });
});

describe('handOver', () => {
  it('yields the bytes once, then ends, and forgets them when closed early', async () => {
    const bytes = Buffer.from('hello');
    const seen: Buffer[] = [];
    for await (const chunk of handOver(bytes)) seen.push(chunk);
    expect(seen).toEqual([bytes]);

    const early = handOver(bytes)[Symbol.asyncIterator]();
    await early.return!();
    expect(await early.next()).toEqual({ value: undefined, done: true });
  });
});
