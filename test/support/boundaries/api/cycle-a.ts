import type { B } from './cycle-b.ts';

export type A = { b?: B };
