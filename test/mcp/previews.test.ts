/**
 * The MCP connector and previews (spec §14, issue 26 item 5): `publish_site` with `preview`
 * publishes a named preview beside the live site, and a connection granted only `preview`
 * (what an agent reviewing pull requests gets) can change nothing that is live, through any tool.
 */
import '../support/localhost-dns.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startService, type RunningService } from '../support/service.ts';
import { connectClient, TestProvider } from './oauth-helpers.ts';
import { publishOk, page } from '../browser/support.ts';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('\n');

async function mcpClient(svc: RunningService, name: string, caps: string[]): Promise<Client> {
  const c = (await connectClient(svc.url, name, { kind: 'group', group: 'mcp', caps }))!;
  const provider = new TestProvider('http://127.0.0.1:9/callback');
  provider.client = { client_id: c.clientId };
  provider.saved = { access_token: c.access, refresh_token: c.refresh, token_type: 'Bearer' };
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider }));
  return client;
}

describe('MCP connector: publish_site with preview, and a preview-only connection', () => {
  let svc: RunningService;
  let admin: string;
  let reviewer: Client;
  const events = async () =>
    ((await (await fetch(`${svc.url}/api/sites/mcp/app/events`, { headers: { 'Remote-User': 'admin' } })).json()) as { events: { type: string; data: Record<string, unknown> }[] }).events;

  beforeAll(async () => {
    svc = await startService({ env: { SITES_VERSIONING_ENABLED: 'true' } });
    admin = await svc.createKey(['--name', 'seeder', '--admin']);
    await publishOk(svc.url, admin, { group: 'mcp', slug: 'app', title: 'App', files: { 'index.html': page('App', 'live v1'), 'about.html': page('About', 'same') } });
    await publishOk(svc.url, admin, { group: 'mcp', slug: 'app', title: 'App', files: { 'index.html': page('App', 'live v2'), 'about.html': page('About', 'same') } });
    reviewer = await mcpClient(svc, 'Reviewer', ['preview']);
  }, 60_000);
  afterAll(async () => {
    await reviewer?.close().catch(() => undefined);
    await svc?.stop();
  });

  it('publishes a preview beside the live site: PreviewResult with the URL, the counts against live and the changed pages', async () => {
    const result = await reviewer.callTool({
      name: 'publish_site',
      arguments: {
        group: 'mcp',
        slug: 'app',
        preview: 'pr-7',
        title: 'Fix the header <script>alert(1)</script>',
        repo: 'https://example.com/pulls/7',
        files: [
          { path: 'index.html', content: page('App', 'preview of pr-7') },
          { path: 'about.html', content: page('About', 'same') },
          { path: 'new.html', content: page('New', 'added') },
        ],
      },
    });
    expect((result as ToolResult).isError, text(result)).toBeFalsy();
    const out = JSON.parse(text(result));
    const url = svc.siteUrl('mcp/pr-7--app');
    expect(out.preview).toMatchObject({ name: 'pr-7', url, title: 'Fix the header <script>alert(1)</script>', repo: 'https://example.com/pulls/7', files: 3 });
    expect(out.changes).toEqual({ added: 1, changed: 1, removed: 0 });
    expect(out.pages).toEqual([`${url}new.html`, url]);
    expect(out.unchanged).toBe(false);

    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('preview of pr-7');
    // The live site is untouched: same content, no new revision.
    const live = await fetch(svc.siteUrl('mcp/app'));
    expect(await live.text()).toContain('live v2');
    const revs = (await (await fetch(`${svc.url}/api/sites/mcp/app/revisions`, { headers: { 'Remote-User': 'admin' } })).json()).revisions;
    expect(revs).toHaveLength(2);
    const published = (await events()).filter((e) => e.type === 'PreviewPublished');
    expect(published).toHaveLength(1);
    expect(published[0].data).toMatchObject({ name: 'pr-7', filesAdded: 1, filesChanged: 1, filesRemoved: 0 });

    // The same files again record nothing.
    const again = JSON.parse(text(await reviewer.callTool({ name: 'publish_site', arguments: { group: 'mcp', slug: 'app', preview: 'pr-7', files: [
      { path: 'index.html', content: page('App', 'preview of pr-7') },
      { path: 'about.html', content: page('About', 'same') },
      { path: 'new.html', content: page('New', 'added') },
    ] } })));
    expect(again.unchanged).toBe(true);
    expect((await events()).filter((e) => e.type === 'PreviewPublished')).toHaveLength(1);
  });

  it('a connection granted only preview changes nothing live: every live-changing tool is refused, naming the capability', async () => {
    const before = await events();
    const html = { html: '<h1>taken over</h1>' };
    const calls: [string, Record<string, unknown>, string][] = [
      ['publish_site', { group: 'mcp', slug: 'app', title: 'Hijacked', ...html }, 'publish'],
      ['publish_site', { group: 'mcp', slug: 'fresh', title: 'New site', ...html }, 'publish'],
      ['update_site', { site: 'mcp/app', title: 'Hijacked' }, 'patch'],
      ['rollback_site', { site: 'mcp/app' }, 'rollback'],
      ['list_revisions', { site: 'mcp/app' }, 'rollback'],
      ['unpublish_site', { site: 'mcp/app' }, 'unpublish'],
      ['restore_site', { site: 'mcp/app' }, 'publish'],
      ['purge_site', { site: 'mcp/app' }, 'purge'],
    ];
    for (const [name, args, cap] of calls) {
      const r = await reviewer.callTool({ name, arguments: args });
      expect((r as ToolResult).isError, `${name} ${text(r)}`).toBe(true);
      expect(text(r), name).toMatch(new RegExp(`^forbidden: .*"${cap}"`));
    }
    expect(await (await fetch(svc.siteUrl('mcp/app'))).text()).toContain('live v2');
    expect((await fetch(svc.siteUrl('mcp/fresh'))).status).toBe(404);
    const site = await (await fetch(`${svc.url}/api/sites/mcp/app`, { headers: { 'Remote-User': 'admin' } })).json();
    expect(site).toMatchObject({ title: 'App', hidden: false });
    expect(await events()).toEqual(before);
  });

  it('refuses a preview outside the grant, of a site that is not live, with site-only fields, or with a bad name', async () => {
    const before = await events();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ group: 'other', slug: 'app', preview: 'pr-1' }, /^forbidden: .*"preview".*other\/app/],
      [{ group: 'mcp', slug: 'nothing-here', preview: 'pr-1' }, /^not_found: /],
      [{ group: 'mcp', slug: 'app', preview: 'pr-1', hidden: true, tags: ['x'] }, /^invalid: tags, hidden are fields of the live site/],
      [{ group: 'mcp', slug: 'app', preview: 'v3' }, /^invalid: .*v3/],
      [{ group: 'mcp', slug: 'app', preview: 'a--b' }, /^invalid: .*--/],
      [{ group: 'mcp', slug: 'app', preview: 'PR-1' }, /^invalid: /],
    ];
    for (const [args, want] of cases) {
      const r = await reviewer.callTool({ name: 'publish_site', arguments: { html: '<h1>x</h1>', ...args } });
      expect((r as ToolResult).isError, JSON.stringify(args)).toBe(true);
      expect(text(r), JSON.stringify(args)).toMatch(want);
    }
    expect(await events()).toEqual(before);
  });

  it('publish implies preview; the preview image of a site is publish_site’s preview_image', async () => {
    const publisher = await mcpClient(svc, 'Publisher', ['publish']);
    try {
      const prev = await publisher.callTool({ name: 'publish_site', arguments: { group: 'mcp', slug: 'app', preview: 'pr-8', html: '<h1>eight</h1>' } });
      expect((prev as ToolResult).isError, text(prev)).toBeFalsy();
      expect(JSON.parse(text(prev)).preview.name).toBe('pr-8');
      const live = await publisher.callTool({ name: 'publish_site', arguments: { group: 'mcp', slug: 'pics', title: 'Pics', preview_image: 'https://example.com/shot.png', html: '<h1>pics</h1>' } });
      expect((live as ToolResult).isError, text(live)).toBeFalsy();
      expect(JSON.parse(text(live)).site.preview).toBe('https://example.com/shot.png');
    } finally {
      await publisher.close().catch(() => undefined);
    }
  });
});
