import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import type { ServiceStorage } from '../contract/audit.ts';
import type { AppDeps } from '../deps.ts';
import { storageOfAll } from './storage.ts';

/** `GET /api/storage` (admins): what every retained revision costs against what the shared store holds. */
export async function serviceStorage(deps: AppDeps, identity: Identity): Promise<ServiceStorage> {
  requireAdmin(identity);
  return storageOfAll(deps.queries, deps.manifests);
}
