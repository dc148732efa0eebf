import type { CommandDeps } from '../../app/deps.ts';
import { revokeConnection } from '../../app/connections/connections.ts';
import { describeGrant } from '../../domain/grants.ts';
import { connectionJson, isActive } from '../../mcp/sites/connections-api.ts';
import { only, parseArgs, single, UsageError } from './args.ts';

const CLI_ACTOR = { kind: 'user', name: `cli:${process.env.USER ?? 'local'}` } as const;

/**
 * `sites mcp connections [--json] [--all]` lists the MCP connections (active ones unless
 * --all); `sites mcp revoke --id ID` revokes one: its tokens fail on the very next call.
 */
export async function runMcpCli(argv: string[], service: { deps: CommandDeps }): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'connections': {
      const parsed = parseArgs(rest, ['json', 'all']);
      only(parsed, ['json', 'all']);
      if (parsed.positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
      const now = service.deps.now();
      const docs = await service.deps.queries.listConnections();
      const shown = parsed.flags.has('all') ? docs : docs.filter((c) => isActive(c, now));
      if (parsed.flags.has('json')) console.log(JSON.stringify(shown.map(connectionJson), null, 2));
      else if (shown.length === 0) console.log('no connections');
      else {
        for (const doc of shown) {
          const c = connectionJson(doc);
          const state = doc.revoked ? `revoked ${c.revoked_at ?? ''}` : isActive(doc, now) ? `active, last used ${c.last_used_at ?? 'never'}` : doc.code?.redeemed === false ? 'pending (code not redeemed)' : 'lapsed';
          console.log(`${c.id}  ${c.client_name}  approved by ${c.user} ${c.created_at}  ${c.grants.map(describeGrant).join('; ')}  ${state}`);
        }
      }
      return 0;
    }
    case 'revoke': {
      const parsed = parseArgs(rest);
      only(parsed, ['id']);
      const id = single(parsed, 'id');
      if (!id) throw new UsageError('mcp revoke needs --id ID (see: sites mcp connections)');
      await revokeConnection(service.deps, CLI_ACTOR, id, `revoked by ${CLI_ACTOR.name}`);
      console.log(`revoked connection ${id}`);
      return 0;
    }
    default:
      throw new UsageError('usage: sites mcp connections [--json] [--all] | sites mcp revoke --id ID');
  }
}
