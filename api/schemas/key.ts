import { z } from 'zod';
import { Timestamp } from './common.ts';
import { Actor } from './events.ts';
import { Grant, GrantRequest } from './grant.ts';

/** `APIKey` (spec §3): never contains the token. */
export const APIKey = z
  .object({
    id: z.int().positive(),
    name: z.string(),
    admin: z.boolean(),
    grants: z.array(Grant),
    created_at: Timestamp,
    expires_at: Timestamp.optional().meta({ description: 'absent: the key does not expire' }),
    last_used_at: Timestamp.optional().meta({ description: 'coalesced: written at most once a minute' }),
    revoked_at: Timestamp.optional().meta({ description: 'only on revoked keys (listed with ?revoked=true)' }),
    revoked_by: Actor.optional().meta({ description: 'who revoked it; only on revoked keys' }),
  })
  .meta({ description: 'An API key (the token is never shown again after creation).' });
export type APIKey = z.infer<typeof APIKey>;

/** `POST /api/keys` answers the key with its token, once. */
export const CreatedAPIKey = APIKey.extend({
  key: z.string().regex(/^key_[A-Za-z0-9_-]{43}$/).meta({ description: 'the bearer token; shown only in this response' }),
});
export type CreatedAPIKey = z.infer<typeof CreatedAPIKey>;

export const KeysResponse = z.object({ keys: z.array(APIKey) });
export type KeysResponse = z.infer<typeof KeysResponse>;

/** `GET /api/keys` query: `revoked=true` adds revoked keys, as `GET /api/mcp/connections` does connections. */
export const KeysQuery = z.object({
  revoked: z
    .stringbool({ truthy: ['true', '1'], falsy: ['false', '0'], error: 'revoked must be true or false' })
    .optional()
    .meta({ description: 'true: include revoked keys (with revoked_at and revoked_by)' }),
});

/** `POST /api/keys` body; the domain checks the rest (a non-admin key needs a grant, the date is in the future). */
export const CreateKeyBody = z.object({
  name: z.string().max(200).refine((name) => name.trim() !== '', { error: 'name is required' }),
  admin: z.boolean().optional(),
  grants: z.array(GrantRequest).optional().meta({ description: 'required unless admin is true' }),
  expires_at: z
    .string()
    .nullish()
    .meta({ description: 'RFC 3339 date-time or date in the future; "", null or absent: never expires' }),
});
