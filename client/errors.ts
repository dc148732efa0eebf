/**
 * The publishing client's failures. It runs on its own (`node sites.mjs` on a CI runner,
 * built from this folder) as well as inside `sites publish`, so it carries its own error
 * types: every one is said as one line, exit status 1, or 2 for a mistake in the command.
 */
export class ClientError extends Error {}

export class ClientUsageError extends Error {}
