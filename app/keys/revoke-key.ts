import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { keyCommands } from '../aggregates.ts';
import { requireAdmin } from '../authorize.ts';
import { KeyIdParam } from '../contract/params.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Revoke a key (spec §5, admins): it is refused by the very next request once this returns.
 * `id` as given (the URL's `{id}`, the CLI's `--id`): anything but a positive whole number
 * is no such key.
 */
export async function revokeKey(deps: AppDeps, identity: Identity, input: { readonly id: string }): Promise<void> {
  requireAdmin(identity);
  const id = KeyIdParam.safeParse(input.id);
  if (!id.success) throw new NotFoundError(`no key ${input.id}`);
  await keyCommands(deps).handle(id.data, identity.actor, { type: 'RevokeKey', id: id.data });
}
