import { DomainError } from '../../domain/errors.ts';
import { ConfigError } from '../config.ts';
import { UsageError } from './args.ts';

/** A failed operation the CLI expected and can say in one line (exit status 1). */
export class CliError extends Error {}

/** Plain words for the system errors people meet: a missing folder, a refused connection… */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'not a folder',
  EISDIR: 'is a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed by the server',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available on this machine',
};

type SystemError = Error & { code?: string; path?: string; syscall?: string; address?: string; port?: number };

/** The reason a system error gives, in words, or undefined for anything else. */
export function systemReason(err: unknown): string | undefined {
  const code = (err as SystemError | undefined)?.code;
  return typeof code === 'string' ? REASONS[code] : undefined;
}

/** One line, whatever the message held: a multi-line message must not break the contract. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

let logLines = false;

/**
 * For `sites serve` with SITES_LOG_FORMAT=json: a failure is written as a JSON log line
 * (`level`, `time`, `msg`), like every other line the service writes, so a log shipper
 * never meets a line it cannot parse.
 */
export function failuresAsLogLines(): void {
  logLines = true;
}

function writeFailure(line: string, stack?: string): void {
  if (logLines) process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: `sites: ${oneLine(line)}`, ...(stack ? { stack } : {}) })}\n`);
  else process.stderr.write(`sites: ${oneLine(line)}\n${stack ? `${stack}\n` : ''}`);
}

/**
 * Prints a failure as one line on stderr and returns the exit status: 2 for bad usage, 1
 * for anything else. An error nobody expected still gets one line; its stack only when
 * SITES_DEBUG=1, since a stack trace tells a newcomer nothing and hides the message.
 */
export function reportFailure(err: unknown): number {
  const say = (line: string) => writeFailure(line);
  if (err instanceof UsageError) {
    say(err.message);
    return 2;
  }
  if (err instanceof ConfigError) say(`configuration error: ${err.message}`);
  else if (err instanceof CliError || err instanceof DomainError) say(err.message);
  else if (systemReason(err)) {
    const e = err as SystemError;
    say(e.path ? `${e.path}: ${systemReason(e)} (${e.syscall ?? e.code})` : `${e.syscall ?? ''} ${e.address ?? ''}${e.port ? `:${e.port}` : ''}: ${systemReason(e)}`);
  } else {
    const message = err instanceof Error ? err.message || err.name : String(err);
    const debug = process.env.SITES_DEBUG === '1';
    writeFailure(`unexpected error: ${message}${debug ? '' : ' (SITES_DEBUG=1 prints the stack)'}`, debug && err instanceof Error ? err.stack : undefined);
  }
  return 1;
}

/**
 * Catches what escapes every `await` (an error event nobody listened to, a rejected
 * promise nobody awaited): one line and exit 1 instead of Node's stack trace. Writing to
 * a closed stdout (`sites keys list | head -1`) just ends the command.
 */
export function installLastResort(): void {
  const fail = (err: unknown) => process.exit(reportFailure(err));
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  process.stdout.on('error', (err: SystemError) => (err.code === 'EPIPE' ? process.exit(0) : fail(err)));
}
