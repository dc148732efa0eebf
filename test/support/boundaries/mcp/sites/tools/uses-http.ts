import { route } from '../../../api/uses-host.ts';

export const tool = route;
