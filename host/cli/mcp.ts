import { connectionsOverview } from '../../app/connections/list-connections.ts';
import { revokeConnection } from '../../app/connections/revoke-connection.ts';
import type { AppDeps } from '../../app/deps.ts';
import { operatorIdentity } from '../../domain/auth.ts';
import { describeGrant } from '../../domain/grants.ts';
import { only, parseArgs, single, UsageError } from './args.ts';

/** Whoever runs the command on the data folder: the operator, an admin named `cli:<user>` in events. */
const OPERATOR = operatorIdentity(process.env.USER ?? 'local');

/**
 * `sites mcp connections [--json] [--all]` lists the MCP connections (active ones unless
 * --all); `sites mcp revoke --id ID` revokes one: its tokens fail on the very next call.
 */
export async function runMcpCli(argv: string[], service: { deps: AppDeps }): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'connections': {
      const parsed = parseArgs(rest, ['json', 'all']);
      only(parsed, ['json', 'all']);
      if (parsed.positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
      const shown = await connectionsOverview(service.deps, OPERATOR, { all: parsed.flags.has('all') });
      if (parsed.flags.has('json')) console.log(JSON.stringify(shown.map((c) => c.connection), null, 2));
      else if (shown.length === 0) console.log('no connections');
      else {
        for (const { connection: c, status } of shown) {
          const state =
            status === 'revoked' ? `revoked ${c.revoked_at ?? ''}` : status === 'active' ? `active, last used ${c.last_used_at ?? 'never'}` : status === 'pending' ? 'pending (code not redeemed)' : 'lapsed';
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
      await revokeConnection(service.deps, OPERATOR, { id });
      console.log(`revoked connection ${id}`);
      return 0;
    }
    default:
      throw new UsageError('usage: sites mcp connections [--json] [--all] | sites mcp revoke --id ID');
  }
}
