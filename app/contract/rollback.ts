import { z } from 'zod';
import { RevisionRef } from './common.ts';

/**
 * The optional rollback body (spec §4): no body, `null` or `{}` rolls back to the most
 * recently archived revision; `{"revision": id}` to that one (`current` is a no-op).
 */
export const RollbackBody = z
  .object({
    revision: RevisionRef.nullish().meta({ description: 'an archived revision id, or "current" (a no-op); absent: the most recently archived one' }),
  })
  .nullish();
