import { CreateKeyBody, type APIKey } from '../../app/contract/key.ts';
import { parseInput } from '../../app/contract/parse.ts';
import { issueKey } from '../../app/keys/issue-key.ts';
import { listKeys } from '../../app/keys/list-keys.ts';
import { revokeKey } from '../../app/keys/revoke-key.ts';
import { operatorIdentity } from '../../domain/auth.ts';
import { CAPABILITIES, describeGrant } from '../../domain/grants.ts';
import { ConfigError, parseDuration } from '../config.ts';
import type { Service } from '../service.ts';
import { noArguments, only, parseArgs, single, UsageError } from './args.ts';
import { formatMinute, table } from './format.ts';

/** Whoever runs the command on the data folder: the operator, an admin named `cli:<user>` in events. */
const OPERATOR = operatorIdentity(process.env.USER ?? 'local');

function grantsFrom(values: readonly string[], kind: 'group' | 'site') {
  return values.map((v) => {
    const colon = v.lastIndexOf(':');
    if (colon < 0) throw new UsageError(`--${kind === 'group' ? 'grant' : 'grant-site'} ${JSON.stringify(v)}: expected TARGET:CAPS`);
    const permissions = v.slice(colon + 1).split(',').map((c) => c.trim()).filter(Boolean);
    if (permissions.length === 0) throw new UsageError(`no capabilities in ${JSON.stringify(v)} (one of ${CAPABILITIES.join(', ')})`);
    const unknown = permissions.find((p) => !(CAPABILITIES as readonly string[]).includes(p));
    if (unknown) throw new UsageError(`unknown capability ${JSON.stringify(unknown)} in ${JSON.stringify(v)} (one of ${CAPABILITIES.join(', ')})`);
    return { kind, target: v.slice(0, colon), permissions };
  });
}

export async function keysCli(argv: string[], open: () => Promise<Service>): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create': {
      const parsed = parseArgs(rest, ['admin', 'json']);
      only(parsed, ['name', 'admin', 'grant', 'grant-site', 'expires-in', 'expires-at', 'json']);
      noArguments(parsed);
      const name = single(parsed, 'name');
      if (!name) throw new UsageError('keys create needs --name NAME');
      const expiresIn = single(parsed, 'expires-in');
      const expiresAt = single(parsed, 'expires-at');
      if (expiresIn && expiresAt) throw new UsageError('give --expires-in or --expires-at, not both');
      const lifetimeMs = expiresIn ? flagDuration(expiresIn, '--expires-in') : undefined;
      let expires: string | undefined;
      if (expiresAt) {
        const t = Date.parse(expiresAt);
        if (Number.isNaN(t)) throw new UsageError(`--expires-at ${JSON.stringify(expiresAt)} is not a date`);
        expires = new Date(t).toISOString();
      }
      const grants = [...grantsFrom(parsed.flags.get('grant') ?? [], 'group'), ...grantsFrom(parsed.flags.get('grant-site') ?? [], 'site')];
      const service = await open();
      try {
        // Relative to the clock the key is issued by, read after opening the stores (which may take a while).
        if (lifetimeMs !== undefined) expires = new Date(service.deps.now().getTime() + lifetimeMs).toISOString();
        const body = parseInput(CreateKeyBody, { name, admin: parsed.flags.has('admin'), grants, ...(expires !== undefined ? { expires_at: expires } : {}) });
        const created = await issueKey(service.deps, OPERATOR, body);
        if (parsed.flags.has('json')) console.log(JSON.stringify(created, null, 2));
        else {
          console.log(`created key ${created.id} (${created.name})${created.admin ? ' admin' : ''}; the token is shown once:`);
          console.log(created.key);
        }
      } finally {
        await service.close();
      }
      return 0;
    }
    case 'list': {
      const parsed = parseArgs(rest, ['json']);
      only(parsed, ['json']);
      noArguments(parsed);
      const service = await open();
      try {
        const { keys } = await listKeys(service.deps, OPERATOR);
        if (parsed.flags.has('json')) console.log(JSON.stringify(keys, null, 2));
        else if (keys.length === 0) console.log('no keys');
        else console.log(keyTable(keys, Date.now()));
      } finally {
        await service.close();
      }
      return 0;
    }
    case 'revoke': {
      const parsed = parseArgs(rest);
      only(parsed, ['id']);
      noArguments(parsed);
      const id = single(parsed, 'id');
      if (!id || !/^\d+$/.test(id)) throw new UsageError('keys revoke needs --id ID');
      const service = await open();
      try {
        await revokeKey(service.deps, OPERATOR, { id });
        console.log(`revoked key ${id}`);
      } finally {
        await service.close();
      }
      return 0;
    }
    default:
      throw new UsageError('usage: sites keys create|list|revoke (sites keys --help says more)');
  }
}

/** A duration given as a flag: a bad one is bad usage (status 2), not a configuration error. */
function flagDuration(value: string, flag: string): number {
  try {
    return parseDuration(value, flag);
  } catch (err) {
    throw err instanceof ConfigError ? new UsageError(err.message) : err;
  }
}

/**
 * The keys as an aligned table with a header. SCOPE comes last: it is the one column of
 * any length (a key may hold many grants), and a long last cell pushes nothing out of line.
 */
function keyTable(keys: readonly APIKey[], now: number): string {
  const expires = (at: string | undefined) => (!at ? 'never' : `${formatMinute(at)}${Date.parse(at) <= now ? ' (expired)' : ''}`);
  return table(
    ['ID', 'NAME', 'CREATED', 'EXPIRES', 'LAST USED', 'SCOPE'],
    keys.map((k) => [
      String(k.id),
      k.name,
      formatMinute(k.created_at),
      expires(k.expires_at),
      k.last_used_at ? formatMinute(k.last_used_at) : 'never',
      k.admin ? 'admin (everything)' : k.grants.map(describeGrant).join('; ') || 'none',
    ]),
  );
}
