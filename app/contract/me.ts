import { z } from 'zod';

/** `GET /api/me`: who is asking and what the instance offers. */
export const Me = z.object({
  user: z.string().meta({ description: 'forward-auth user, or the key name' }),
  is_admin: z.boolean(),
  base_domain: z.string(),
  versioning_enabled: z.boolean(),
  mcp_enabled: z.boolean(),
});
export type Me = z.infer<typeof Me>;
