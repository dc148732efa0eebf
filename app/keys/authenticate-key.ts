import { authenticateKey as checkKey, type Identity } from '../../domain/auth.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Who a bearer token is, when it is an API key: looked up by the SHA-256 of the token and
 * compared again in constant time (domain/auth.ts); expired, revoked and unknown keys are
 * all `undefined`. Authentication, not authorization: the edges call it, the use cases decide.
 */
export async function authenticateKey(deps: Pick<AppDeps, 'queries' | 'now'>, token: string): Promise<Identity | undefined> {
  return checkKey(token, (hash) => deps.queries.getKeyByTokenHash(hash), deps.now());
}
