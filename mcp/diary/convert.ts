/**
 * The former single conversion module, kept only as a re-export: the
 * simulator in test/support and the conversion tests still import this path.
 * New code imports units/<family>.ts (and upstream/login-token.ts) directly.
 */
export * from './units/index.ts';
export { csrfTokenFromPlaySession, isNotAuthenticated } from './upstream/login-token.ts';
