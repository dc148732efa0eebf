import { root } from '../host/root.ts';

export const route = root;
