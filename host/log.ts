import { pino, type DestinationStream } from 'pino';
import type { AuditEntry } from '../api/audit-entry.ts';
import type { Config } from './config.ts';

export type LogFields = Record<string, unknown>;

export type Logger = {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
};

/**
 * Credentials this service hands out (API keys, the MCP connector's codes and tokens) and
 * anything sent as a bearer credential. Nothing is logged from headers, query strings or
 * bodies in the first place; this is the second line, for a message that quotes input.
 */
const SECRET = /\b(?:key|mcp[car])_[A-Za-z0-9_.-]{8,}|(\bBearer\s+)[^\s",]+/gi;
const REDACTED = '[redacted]';

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET, (_, bearer: string | undefined) => `${bearer ?? ''}${REDACTED}`);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, depth + 1)]));
}

/**
 * The service's log, on stderr, through pino: one JSON object per line with
 * `SITES_LOG_FORMAT=json` (`level`, `time`, `msg` and the fields), or one readable line
 * per entry with `text` (`<time> <LEVEL> <msg> key=value …`). `write` replaces stderr (tests).
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, write?: (line: string) => void): Logger {
  const out = write ?? ((line: string) => void process.stderr.write(line));
  const destination: DestinationStream =
    config.logFormat === 'json'
      ? write
        ? { write: out }
        : pino.destination({ dest: 2, sync: true })
      : { write: (line: string) => out(textLine(JSON.parse(line) as Record<string, unknown>)) };
  const logger = pino(
    {
      level: config.logLevel,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, fields?: LogFields): void => {
      if (!logger.isLevelEnabled(level)) return;
      const text = scrub(msg) as string;
      if (fields) logger[level](scrub(fields) as LogFields, text);
      else logger[level](text);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A value as `key=value` shows it: bare when that stays one unambiguous word, JSON-quoted otherwise. */
function textValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=\\]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** `2026-11-24T10:15:00.000Z WARN refused status=401 route=/api/keys client=203.0.113.9`: one line, whatever the values hold. */
function textLine(entry: Record<string, unknown>): string {
  const { level, time, msg, ...fields } = entry;
  const extra = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${textValue(v)}`)
    .join('');
  return `${String(time)} ${String(level).toUpperCase()} ${String(msg ?? '').replace(/\s*\n\s*/g, ' | ')}${extra}\n`;
}

/**
 * The write log's lines (api/write-log.ts, mcp/sites/audit.ts): `msg` is `write` or
 * `denied`, at `warn` for 401/403 (what fail2ban watches), `error` for a failure, `info`
 * otherwise. The client address is always the last field, so a filter anchored at the end
 * of the line finds it and never an address a client wrote into a quoted value.
 */
export function auditTo(log: Logger): (entry: AuditEntry) => void {
  return ({ kind, client, ...fields }) => {
    const level = fields.status >= 500 ? 'error' : fields.status === 401 || fields.status === 403 ? 'warn' : 'info';
    log[level](kind, { ...fields, client });
  };
}
