import type { Context } from 'koa';
import { root } from '../host/root.ts';

export type Planted = Context;
export const fromHost = root;
