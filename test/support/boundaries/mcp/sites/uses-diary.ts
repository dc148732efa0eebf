import './nowhere.ts';
import { tool } from '../diary/uses-service.ts';

export const connector = tool;
