export const root = 'host';
