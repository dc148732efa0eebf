import { describe, expect, it } from 'vitest';
import { SiteListCache } from '../../app/queries/site-list-cache.ts';

const body = (bytes: number, fill = 'x') => Buffer.alloc(bytes, fill);

/** A checkpoint the test moves, and a compute that counts its calls. */
function fixture() {
  const state = { checkpoint: '1' as string | undefined, computed: 0 };
  const checkpoint = async () => state.checkpoint;
  const compute = (bytes: number, fill?: string) => async () => {
    state.computed++;
    return body(bytes, fill);
  };
  return { state, checkpoint, compute };
}

describe('SiteListCache', () => {
  it('answers from memory while the checkpoint stays, and computes again when it moves', async () => {
    const { state, checkpoint, compute } = fixture();
    const cache = new SiteListCache(1000);
    expect((await cache.answer(checkpoint, 'k', compute(10, 'a'))).toString()).toBe('a'.repeat(10));
    expect((await cache.answer(checkpoint, 'k', compute(10, 'b'))).toString()).toBe('a'.repeat(10));
    expect(state.computed).toBe(1);
    state.checkpoint = '2';
    expect((await cache.answer(checkpoint, 'k', compute(10, 'c'))).toString()).toBe('c'.repeat(10));
    expect(state.computed).toBe(2);
    // One body per key: the old checkpoint's is replaced, not kept beside it.
    expect(cache.bytes).toBe(10);
  });

  it('keeps nothing computed while the checkpoint moved', async () => {
    const { state, checkpoint } = fixture();
    const cache = new SiteListCache(1000);
    const racing = async () => {
      state.checkpoint = '2'; // a write was projected while the answer was being computed
      return body(10, 'a');
    };
    expect((await cache.answer(checkpoint, 'k', racing)).toString()).toBe('a'.repeat(10));
    expect(cache.keys()).toEqual([]);
    expect((await cache.answer(checkpoint, 'k', async () => body(10, 'b'))).toString()).toBe('b'.repeat(10));
    expect(cache.keys()).toEqual(['k']);
  });

  it('stays within its byte budget, dropping the least recently used first', async () => {
    const { checkpoint, compute } = fixture();
    const cache = new SiteListCache(100);
    await cache.answer(checkpoint, 'a', compute(40));
    await cache.answer(checkpoint, 'b', compute(40));
    await cache.answer(checkpoint, 'a', compute(40)); // a hit makes `a` the most recent
    await cache.answer(checkpoint, 'c', compute(40));
    expect(cache.keys()).toEqual(['a', 'c']);
    expect(cache.bytes).toBe(80);
    await cache.answer(checkpoint, 'd', compute(100));
    expect(cache.keys()).toEqual(['d']);
    expect(cache.bytes).toBe(100);
    // A body larger than the whole budget is answered, never kept.
    expect((await cache.answer(checkpoint, 'e', compute(101))).length).toBe(101);
    expect(cache.keys()).toEqual(['d']);
    expect(cache.bytes).toBe(100);
  });

  it('computes once for concurrent misses at one checkpoint, once per key', async () => {
    const { state, checkpoint, compute } = fixture();
    const cache = new SiteListCache(1000);
    const answers = await Promise.all([
      cache.answer(checkpoint, 'k', compute(5, 'a')),
      cache.answer(checkpoint, 'k', compute(5, 'b')),
      cache.answer(checkpoint, 'other', compute(5, 'c')),
    ]);
    expect(answers.map((b) => b.toString())).toEqual(['aaaaa', 'aaaaa', 'ccccc']);
    expect(state.computed).toBe(2);
  });

  it('does not lend a failed computation to later callers', async () => {
    const { checkpoint, compute } = fixture();
    const cache = new SiteListCache(1000);
    await expect(cache.answer(checkpoint, 'k', async () => Promise.reject(new Error('read model down')))).rejects.toThrow('read model down');
    expect((await cache.answer(checkpoint, 'k', compute(3, 'z'))).toString()).toBe('zzz');
  });
});
