/**
 * Typed domain errors. Each maps to exactly one HTTP status and machine code
 * (see api/errors.ts); MCP tools turn them into `isError` results.
 */
export const ERROR_CODES = ['invalid', 'unauthenticated', 'forbidden', 'not_found', 'conflict', 'too_large', 'unsupported_media_type', 'insufficient_storage'] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string) {
    super('invalid', message);
  }
}
export class UnauthenticatedError extends DomainError {
  constructor(message = 'missing or invalid credentials') {
    super('unauthenticated', message);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('forbidden', message);
  }
}
export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}
export class TooLargeError extends DomainError {
  constructor(message: string) {
    super('too_large', message);
  }
}
export class UnsupportedMediaTypeError extends DomainError {
  constructor(message: string) {
    super('unsupported_media_type', message);
  }
}
/** The file store ran out of space (disk full, quota). */
export class InsufficientStorageError extends DomainError {
  constructor(message: string) {
    super('insufficient_storage', message);
  }
}

/**
 * Raised by an event store when the expected stream revision does not match:
 * another writer appended first. Command handlers retry once, then answer 409.
 */
export class StreamConflictError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: number,
    readonly actual: number | undefined,
  ) {
    super(`stream ${stream}: expected revision ${expected}, found ${actual ?? 'unknown'}`);
    this.name = 'StreamConflictError';
  }
}

/**
 * A failure as the domain names it: a disk or quota that is full anywhere a use case writes
 * (the file store, a spooled upload) is `InsufficientStorageError` (507, "nothing was
 * changed"); anything else is returned as it is. The one place that says so: the HTTP error
 * middleware and the MCP tools both ask here.
 */
export function asDomainError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  if (isOutOfSpace(err)) return new InsufficientStorageError('the file store is out of space; nothing was changed');
  return err;
}

/** True for the errno codes of a full disk or an exhausted quota (the file stores name the operation). */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
