import { describe, expect, it } from 'vitest';
import { checkpointReader } from '../../app/queries/fresh-checkpoint.ts';

describe('checkpointReader', () => {
  it('reads once for the callers of one turn, after they asked, and again for later ones', async () => {
    let value = 'a';
    let reads = 0;
    const readModel = {
      checkpoint: async () => {
        reads++;
        return value;
      },
    };
    const freshCheckpoint = checkpointReader(readModel);
    const first = [freshCheckpoint(), freshCheckpoint()];
    value = 'b'; // changed after they asked, before the read: they must see it
    expect(await Promise.all(first)).toEqual(['b', 'b']);
    expect(reads).toBe(1);
    value = 'c';
    expect(await freshCheckpoint()).toBe('c');
    expect(reads).toBe(2);
  });
});
