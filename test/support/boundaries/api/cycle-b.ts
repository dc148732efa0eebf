import type { A } from './cycle-a.ts';

export type B = { a?: A };
