import { z } from 'zod';
import { SiteRef } from './site-ref.ts';

/** `{domain}` of `PUT`/`DELETE /api/sites/{path}/domains/{domain}` (spec §15); the use case checks it with the domain's rules. */
export const DomainParam = z
  .string()
  .regex(/\./)
  .meta({
    description:
      'a custom domain: a lower-case host name of at least two labels (an IDN in its xn-- form), without port, wildcard or trailing dot, ' +
      'that is not the base domain, an alias or the control domain, nor under one of them',
    examples: ['docs.example.com'],
  });

/** One custom domain of one site: the input of attach and detach. */
export const DomainInput = SiteRef.extend({ domain: z.string().meta({ description: 'the custom domain, e.g. "docs.example.com"' }) });
export type DomainInput = z.output<typeof DomainInput>;
