import { isIP } from 'node:net';
import { ipToBigInt, type Cidr } from '../api/ip.ts';

/** A bad value: start-up stops with this one line. */
export class ConfigError extends Error {}

/**
 * How one kind of value is read from its variable. `format` is what the configuration
 * reference says a value looks like, so the reference and the parser are one thing.
 */
export type Parser<T> = {
  readonly format: string;
  readonly parse: (raw: string, name: string) => T;
};

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `720h`, `90m`, `30s`, `1.5h`, `7d` (Go-style, also as a sum: `1h30m`). */
export function parseDuration(value: string, name: string): number {
  const parts = value.trim().match(/\d+(?:\.\d+)?(?:ms|s|m|h|d)/g);
  if (!parts || parts.join('') !== value.trim()) throw new ConfigError(`${name}: cannot parse duration ${JSON.stringify(value)} (use e.g. 720h, 30m, 45s)`);
  let total = 0;
  for (const p of parts) {
    const m = DURATION.exec(p)!;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (total <= 0) throw new ConfigError(`${name}: duration must be positive`);
  return total;
}

export function parseCidr(value: string, name: string): Cidr {
  const parts = value.trim().split('/');
  if (parts.length > 2) throw new ConfigError(`${name}: ${JSON.stringify(value)} is not an IP address or CIDR`);
  let [addr, prefixText] = parts as [string, string | undefined];
  // An IPv4-mapped IPv6 entry (::ffff:10.0.0.1) means that IPv4 address: peers are compared as IPv4.
  if (/^::ffff:/i.test(addr) && isIP(addr.slice(7)) === 4) {
    addr = addr.slice(7);
    if (prefixText !== undefined) {
      const p = Number(prefixText);
      if (!/^\d+$/.test(prefixText) || p < 96 || p > 128) throw new ConfigError(`${name}: bad prefix length in ${JSON.stringify(value)}`);
      prefixText = String(p - 96);
    }
  }
  const family = isIP(addr ?? '');
  if (family === 0) throw new ConfigError(`${name}: ${JSON.stringify(value)} is not an IP address or CIDR`);
  const width = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
    throw new ConfigError(`${name}: bad prefix length in ${JSON.stringify(value)}`);
  }
  return { family: family as 4 | 6, bits: ipToBigInt(addr!, family as 4 | 6), prefix };
}

const splitList = (raw: string): string[] => raw.split(',').map((s) => s.trim()).filter((s) => s !== '');

function domainName(value: string, name: string): string {
  const d = value.trim().toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(d) || d.includes('..')) throw new ConfigError(`${name}: ${JSON.stringify(value)} is not a domain name`);
  return d;
}

export const duration: Parser<number> = { format: 'duration: `720h`, `30m`, `45s`, `1h30m`', parse: parseDuration };

export const bytes: Parser<number> = {
  format: 'bytes: `67108864`, `64MiB`, `500KB`',
  parse(raw, name) {
    const m = /^(\d+)\s*(b|kb|kib|mb|mib|gb|gib)?$/i.exec(raw.trim());
    if (!m) throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not a byte count (e.g. 67108864 or 64MiB)`);
    const unit = (m[2] ?? 'b').toLowerCase();
    const mult = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 }[unit]!;
    const n = Number(m[1]) * mult;
    if (n <= 0) throw new ConfigError(`${name}: must be positive`);
    return n;
  },
};

export function int(min: number): Parser<number> {
  return {
    format: `whole number ≥ ${min}`,
    parse(raw, name) {
      if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not a whole number`);
      const n = Number(raw);
      if (n < min) throw new ConfigError(`${name}: must be at least ${min}`);
      return n;
    },
  };
}

export const bool: Parser<boolean> = {
  format: '`true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`)',
  parse(raw, name) {
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not true or false`);
  },
};

/** One of a few words, compared without case. */
export function oneOf<const W extends string>(words: readonly W[], message: (raw: string) => string): Parser<W> {
  return {
    format: words.map((w) => `\`${w}\``).join(' or '),
    parse(raw, name) {
      const v = raw.trim().toLowerCase();
      if (!(words as readonly string[]).includes(v)) throw new ConfigError(`${name}: ${message(raw)}`);
      return v as W;
    },
  };
}

export const domain: Parser<string> = { format: 'domain name', parse: domainName };

export const domains: Parser<string[]> = {
  format: 'comma-separated domain names',
  parse: (raw, name) => splitList(raw).map((d) => domainName(d, name)),
};

export const names: Parser<string[]> = { format: 'comma-separated user names', parse: (raw) => splitList(raw) };

export const cidrs: Parser<ReturnType<typeof parseCidr>[]> = {
  format: 'comma-separated IPs or CIDRs (`10.0.0.0/8`, `::1`)',
  parse: (raw, name) => splitList(raw).map((c) => parseCidr(c, name)),
};

export const listenAddr: Parser<{ host: string; port: number }> = {
  format: '`HOST:PORT` (`[::1]:8080` for IPv6; `:8080` for every address)',
  parse(raw, name) {
    const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(raw.trim());
    if (!m) throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not HOST:PORT`);
    const port = Number(m[3]);
    if (port > 65535) throw new ConfigError(`${name}: port ${port} is out of range`);
    return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
  },
};

/** Any text matching `pattern`, trimmed; `problem` completes "NAME: …" when it does not. */
export function matching(format: string, pattern: RegExp, problem: (raw: string) => string, trim = true): Parser<string> {
  return {
    format,
    parse(raw, name) {
      const v = trim ? raw.trim() : raw;
      if (!pattern.test(v)) throw new ConfigError(`${name}: ${problem(raw)}`);
      return v;
    },
  };
}

export const text: Parser<string> = { format: 'text', parse: (raw) => raw };
