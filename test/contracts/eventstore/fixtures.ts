import { randomUUID } from 'node:crypto';
import type { EventMeta } from '../../../domain/events.ts';
import type { EventToAppend } from '../../../domain/ports.ts';

export const systemMeta: EventMeta = { actor: { kind: 'system', name: 'contract-test' }, at: '2025-01-02T03:04:05.678Z' };

/** A small, valid event; `n` makes each one distinguishable when read back. */
export const used = (n: number, meta: EventMeta = systemMeta): EventToAppend => ({
  type: 'KeyUsed',
  data: { id: n, at: `2025-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z` },
  meta,
});

export const many = (count: number, from = 0): EventToAppend[] => Array.from({ length: count }, (_, i) => used(from + i));

/**
 * Stream names unique to one test run: the EventStoreDB suite runs against a server that
 * keeps everything, so tests never rely on an empty log.
 */
export const uniqueStream = (label: string): string => `key-${label}-${randomUUID().slice(0, 8)}`;
