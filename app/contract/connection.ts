import { z } from 'zod';
import { Timestamp } from './common.ts';
import { Grant } from './grant.ts';

/** `Connection` (spec §13): an MCP client a user approved; never any token or hash. */
export const Connection = z
  .object({
    id: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    user: z.string().meta({ description: 'the forward-auth user who approved it' }),
    grants: z.array(Grant),
    created_at: Timestamp,
    last_used_at: Timestamp.optional().meta({ description: 'when its access token last authorized a request (coalesced like a key’s)' }),
    expires_at: Timestamp.meta({ description: 'when its current refresh token lapses; moves forward with each refresh' }),
    revoked_at: Timestamp.optional().meta({ description: 'only on revoked connections (listed with ?revoked=true)' }),
    revoked_reason: z.string().optional().meta({ description: 'why it was revoked (by whom, or "refresh token reused"); only on revoked connections' }),
  })
  .meta({ description: 'An MCP connection.' });
export type Connection = z.infer<typeof Connection>;

export const ConnectionsResponse = z.object({ connections: z.array(Connection) });

/** `GET /api/mcp/connections` query: `revoked=true` adds revoked connections. */
export const ConnectionsQuery = z.object({
  revoked: z
    .stringbool({ truthy: ['true', '1'], falsy: ['false', '0'], error: 'revoked must be true or false' })
    .optional()
    .meta({ description: 'true: include revoked connections (with revoked_at)' }),
});

/** `{id}` of `DELETE /api/mcp/connections/{id}`. */
export const ConnectionIdParam = z.string().min(1).meta({ description: 'connection id' });
