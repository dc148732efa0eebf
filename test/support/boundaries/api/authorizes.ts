import { authorize } from '../app/authorize.ts';
import { projected } from '../projections/uses-app.ts';

export const route = [authorize, projected];
