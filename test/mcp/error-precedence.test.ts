import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../domain/auth.ts';
import { registerLifecycleTools } from '../../mcp/sites/tools/lifecycle.ts';
import { registerPublishTools } from '../../mcp/sites/tools/publish.ts';
import { publishSite } from '../../app/publish/publish-site.ts';
import { admin, files, keyHolder, openApp, type AppHarness } from '../support/app.ts';

/**
 * The MCP tools follow spec §2 as the HTTP routes do: a connection that lacks the capability
 * on the site it names is refused with `forbidden` however wrong the rest of its arguments
 * are; only once it may act are they checked (`invalid`). The tools run in this process on
 * the embedded stores, through the real MCP server and client over an in-memory transport.
 */
type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('\n');

let app: AppHarness;

async function connect(identity: Identity): Promise<Client> {
  const server = new McpServer({ name: 'sites', version: 'test' }, { capabilities: { tools: {} } });
  registerPublishTools(server, app.deps, identity);
  registerLifecycleTools(server, app.deps, identity);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'precedence', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** Arguments that name team/app and are wrong in every other way the tool's schema lets through. */
const calls: [string, Record<string, unknown>][] = [
  ['update_site', { site: 'team/app', title: '', tags: ['Not A Tag!'], description: 'x'.repeat(100_000) }],
  ['rollback_site', { site: 'team/app', revision: 'not a revision id' }],
  ['publish_site', { group: 'team', slug: 'app', title: 'x'.repeat(100_000), files: [{ path: '../escape.html', content: '!!', encoding: 'base64' }] }],
  ['publish_site', { group: 'team', slug: 'app', html: '<p>x</p>', files: [] }],
];

beforeAll(async () => {
  app = openApp();
  await publishSite(app.deps, admin, { meta: { group: 'team', slug: 'app', title: 'App' }, files: files({ 'index.html': '<p>1</p>' }) });
});
afterAll(() => app?.close());

describe('MCP tools: forbidden before invalid', () => {
  it('a connection with every capability on another group is refused on team/app whatever else it sends', async () => {
    const elsewhere = keyHolder([{ kind: 'group', target: 'bots', permissions: ['publish', 'unpublish', 'rollback', 'patch', 'purge'] }]);
    const client = await connect(elsewhere);
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      expect((result as ToolResult).isError, name).toBe(true);
      expect(text(result), `${name} ${JSON.stringify(args).slice(0, 80)}`).toMatch(/^forbidden: /);
    }
    await client.close();
  });

  it('a connection that may act gets the invalid answer for the same arguments, and nothing changed', async () => {
    const allowed = keyHolder([{ kind: 'group', target: 'team', permissions: ['publish', 'rollback', 'patch'] }]);
    const client = await connect(allowed);
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      expect(text(result), name).toMatch(/^invalid: /);
    }
    await client.close();
    expect((await app.deps.queries.getSite('team/app'))?.meta.title).toBe('App');
  });
});
