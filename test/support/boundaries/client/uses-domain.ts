import { fromHost } from '../domain/impure.ts';

export const shipped = fromHost;
