export const authorize = (): void => undefined;
