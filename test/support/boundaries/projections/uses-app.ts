import { useCase } from '../app/uses-api.ts';

export const projected = useCase;
