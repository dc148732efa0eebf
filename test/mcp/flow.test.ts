import '../support/localhost-dns.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, refreshAuthorization } from '@modelcontextprotocol/client';
import { startService, type RunningService } from '../support/service.ts';
import { approve, rawMcp, TestProvider, tokenRequest } from './oauth-helpers.ts';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('\n');

describe('MCP connector: the whole flow with the SDK client against the real service', () => {
  let svc: RunningService;
  const provider = new TestProvider();
  let client: Client;
  let connectionId = '';

  beforeAll(async () => {
    svc = await startService();
  }, 30_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await svc?.stop();
  });

  it('answers 401 with a WWW-Authenticate challenge pointing at the resource metadata', async () => {
    const res = await rawMcp(svc.url, undefined);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${svc.url}/.well-known/oauth-protected-resource/mcp"`);
    const prm = await (await fetch(`${svc.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(prm).toMatchObject({ resource: `${svc.url}/mcp`, authorization_servers: [svc.url] });
    const asm = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(asm).toMatchObject({ issuer: svc.url, code_challenge_methods_supported: ['S256'], grant_types_supported: ['authorization_code', 'refresh_token'] });
  });

  it('registers, authorizes through the consent form with PKCE, and exchanges the code', async () => {
    const first = new Client({ name: 'flow-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^mcpclient_/);
    expect(provider.authUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.authUrl?.searchParams.get('resource')).toBe(`${svc.url}/mcp`);

    const page = await fetch(provider.authUrl!, { headers: { 'Remote-User': 'admin' } });
    const html = await page.text();
    expect(html).toContain('Test Agent'); // the page names the client
    expect(html).toMatch(/name="target_group" value="mcp"/); // prefilled from SITES_MCP_GROUP
    expect(html).toMatch(/value="publish" checked/);

    const back = await approve(svc.url, provider.authUrl!, { kind: 'group', group: 'mcp', caps: ['publish', 'unpublish', 'rollback'] });
    expect(`${back.origin}${back.pathname}`).toBe(provider.redirectUrl);
    expect(back.searchParams.get('iss')).toBe(svc.url);
    await transport.finishAuth(back.searchParams);
    expect(provider.saved?.access_token).toMatch(/^mcpa_/);
    expect(provider.saved?.refresh_token).toMatch(/^mcpr_/);

    client = new Client({ name: 'flow-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider }));
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(
      ['list_revisions', 'list_sites', 'publish_site', 'purge_site', 'restore_site', 'rollback_site', 'unpublish_site', 'update_site'].sort(),
    );
    for (const name of ['publish_site', 'unpublish_site', 'purge_site', 'rollback_site']) expect(byName.get(name)?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('list_sites')?.annotations?.readOnlyHint).toBe(true);

    const listed = await (await fetch(`${svc.url}/api/mcp/connections`, { headers: { 'Remote-User': 'admin' } })).json();
    expect(listed.connections).toHaveLength(1);
    expect(listed.connections[0]).toMatchObject({ client_name: 'Test Agent', user: 'admin', expires_at: expect.any(String) }); // spec §13
    expect(listed.connections[0].revoked_at).toBeUndefined();
    expect(listed.connections[0].grants).toEqual([{ kind: 'group', target: 'mcp', permissions: ['publish', 'unpublish', 'rollback'] }]);
    expect(JSON.stringify(listed)).not.toMatch(/mcpa_|mcpr_|Hash/);
    connectionId = listed.connections[0].id;
  }, 30_000);

  it('publishes three files including a base64 image, served over HTTP', async () => {
    const result = await client.callTool({
      name: 'publish_site',
      arguments: {
        group: 'mcp',
        slug: 'demo',
        title: 'Made by an agent',
        tags: ['mcp'],
        files: [
          { path: 'index.html', content: '<!doctype html><link rel="stylesheet" href="css/site.css"><h1>Hello from MCP</h1><img src="img/dot.png">' },
          { path: 'css/site.css', content: 'h1 { color: rebeccapurple; }', encoding: 'utf8' },
          { path: 'img/dot.png', content: PNG.toString('base64'), encoding: 'base64' },
        ],
      },
    });
    expect((result as ToolResult).isError).toBeFalsy();
    const out = JSON.parse(text(result));
    expect(out).toMatchObject({ url: svc.siteUrl('mcp/demo'), group: 'mcp', slug: 'demo' });
    expect(out.site).toMatchObject({ title: 'Made by an agent', tags: ['mcp'], hidden: false, size: expect.any(Number) });
    expect(out.revision).toMatch(/^\d{8}T\d{6}\.\d{9}Z$/);

    const index = await fetch(svc.siteUrl('mcp/demo'));
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('Hello from MCP');
    const css = await fetch(`${svc.siteUrl('mcp/demo')}css/site.css`);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
    expect(await css.text()).toBe('h1 { color: rebeccapurple; }');
    const png = await fetch(`${svc.siteUrl('mcp/demo')}img/dot.png`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);

    // The audit trail names the connection.
    const events = await (await fetch(`${svc.url}/api/sites/mcp/demo/events`, { headers: { 'Remote-User': 'admin' } })).json();
    expect(JSON.stringify(events.events[0].actor)).toContain(connectionId);

    const list = JSON.parse(text(await client.callTool({ name: 'list_sites', arguments: {} })));
    expect(list.sites.map((s: { slug: string }) => s.slug)).toEqual(['demo']);
    const revs = JSON.parse(text(await client.callTool({ name: 'list_revisions', arguments: { site: 'mcp/demo' } })));
    expect(revs.revisions).toEqual([expect.objectContaining({ id: out.revision, current: true, files: 3 })]);
  });

  it('publish_site: an empty page publishes, a rerun answers unchanged, a path in the trash is refused', async () => {
    const args = { group: 'mcp', slug: 'blank', title: 'Blank', html: '' };
    const first = await client.callTool({ name: 'publish_site', arguments: args });
    expect((first as ToolResult).isError, text(first)).toBeFalsy();
    const published = JSON.parse(text(first));
    expect(published.unchanged).toBe(false);
    const served = await fetch(svc.siteUrl('mcp/blank'));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-length')).toBe('0');

    const rerun = JSON.parse(text(await client.callTool({ name: 'publish_site', arguments: args })));
    expect(rerun).toMatchObject({ unchanged: true, revision: published.revision, updated_at: published.updated_at });

    expect((await client.callTool({ name: 'unpublish_site', arguments: { site: 'mcp/blank' } }) as ToolResult).isError).toBeFalsy();
    const refused = await client.callTool({ name: 'publish_site', arguments: { ...args, html: '<p>over the trash</p>' } });
    expect((refused as ToolResult).isError).toBe(true);
    expect(text(refused)).toBe('conflict: mcp/blank is in the trash: restore it or purge it first');
  });

  it('refuses calls outside the grant, naming the capability and target, and publishes nothing', async () => {
    const outside = await client.callTool({ name: 'publish_site', arguments: { group: 'other', slug: 'x', title: 'nope', html: '<h1>x</h1>' } });
    expect((outside as ToolResult).isError).toBe(true);
    expect(text(outside)).toMatch(/forbidden.*"publish".*other\/x/);
    expect((await fetch(svc.siteUrl('other/x'))).status).toBe(404);

    const noPatch = await client.callTool({ name: 'update_site', arguments: { site: 'mcp/demo', title: 'renamed' } });
    expect((noPatch as ToolResult).isError).toBe(true);
    expect(text(noPatch)).toMatch(/"patch".*mcp\/demo/);
    const purge = await client.callTool({ name: 'purge_site', arguments: { site: 'mcp/demo' } });
    expect(text(purge)).toMatch(/"purge".*mcp\/demo/);
  });

  it('refreshes: the pair rotates and the new access token works', async () => {
    const old = provider.saved!;
    const metadata = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    const tokens = await refreshAuthorization(svc.url, { metadata, clientInformation: provider.client!, refreshToken: old.refresh_token!, resource: `${svc.url}/mcp` });
    expect(tokens.access_token).not.toBe(old.access_token);
    expect(tokens.refresh_token).not.toBe(old.refresh_token);
    provider.saveTokens(tokens);
    expect((await rawMcp(svc.url, old.access_token)).status).toBe(401); // one access token per connection
    const ok = await rawMcp(svc.url, tokens.access_token);
    expect(ok.status).toBe(200);
    const listed = await client.callTool({ name: 'list_sites', arguments: {} });
    expect((listed as ToolResult).isError).toBeFalsy();
  });

  it('revokes: the next call with the connection\'s token is refused', async () => {
    const token = provider.saved!.access_token;
    const del = await fetch(`${svc.url}/api/mcp/connections/${connectionId}`, { method: 'DELETE', headers: { 'Remote-User': 'admin' } });
    expect(del.status).toBe(204);
    const res = await rawMcp(svc.url, token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await expect(client.callTool({ name: 'list_sites', arguments: {} })).rejects.toThrow();
    const refresh = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token!, client_id: provider.client!.client_id });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const again = await fetch(`${svc.url}/api/mcp/connections/${connectionId}`, { method: 'DELETE', headers: { 'Remote-User': 'admin' } });
    expect(again.status).toBe(404);
    // The published site stays: revoking a connection does not touch its work.
    expect((await fetch(svc.siteUrl('mcp/demo'))).status).toBe(200);
  });
});
