import { readFileSync } from 'node:fs';

export const io = readFileSync;
