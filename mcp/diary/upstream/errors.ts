/**
 * Failures of upstream calls, already worded for the tool result: tools turn
 * any {@link UpstreamError} into an `isError` result carrying its message.
 */

/** A failed upstream call; `status` is set for HTTP errors, absent for network failures and timeouts. */
export class UpstreamError extends Error {
  readonly status?: number;
  readonly body?: string;
  constructor(message: string, status?: number, body?: string) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** The configured credentials were refused (or the login did not take). */
export const CREDENTIALS_REJECTED =
  'Diary login failed: the diary rejected the configured credentials (check DIARY_EMAIL and DIARY_PASSWORD).';

/** A fresh login was rejected again: the client gives up instead of looping. */
export const STILL_UNAUTHENTICATED = 'Diary session problem: still not authenticated after logging in again.';

/** Whitespace collapsed and cut to 300 characters, for error messages. */
export function excerpt(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/** `<action> failed: upstream HTTP <status>: <excerpt>` (or ` (empty body)`). */
export function httpError(action: string, status: number, body: string): UpstreamError {
  const e = excerpt(body);
  return new UpstreamError(`${action} failed: upstream HTTP ${status}${e ? `: ${e}` : ' (empty body)'}`, status, body);
}
