import type { Config } from './config.ts';

export type Logger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;

/** Logs to stderr as text lines or JSON objects (`SITES_LOG_FORMAT`). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  const min = LEVELS[config.logLevel];
  const write = (level: keyof typeof LEVELS, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    if (config.logFormat === 'json') {
      process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    } else {
      const extra = fields ? ' ' + Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ') : '';
      process.stderr.write(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}${extra}\n`);
    }
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
