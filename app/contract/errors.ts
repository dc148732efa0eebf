import { z } from 'zod';
import { ERROR_CODES as DOMAIN_CODES, type ErrorCode } from '../../domain/errors.ts';

/** Every machine code an error body can carry: the domain's (spec §2) and `internal` for a 500. */
export const ERROR_CODES: readonly [ErrorCode | 'internal', ...(ErrorCode | 'internal')[]] = [...DOMAIN_CODES, 'internal'];

/** Every error body (spec §2). */
export const ErrorBody = z
  .object({
    error: z.string().meta({ description: 'a human sentence' }),
    code: z.enum(ERROR_CODES),
    missing: z.array(z.string()).optional().meta({ description: 'a deploy published with contents not uploaded yet (409): their digests (spec §10)' }),
  })
  .meta({ description: 'An error: a sentence for people and a code for programs.' });
export type ErrorBody = z.infer<typeof ErrorBody>;
