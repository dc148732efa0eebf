import { ClientUsageError } from './errors.ts';

export type Parsed = { readonly positionals: string[]; readonly flags: Map<string, string> };

/**
 * `--name value` and `--name=value` flags and positionals; the `booleans` take no value
 * (they are set to `true`). `--help` anywhere sets the flag `help`, whatever else is wrong
 * with the line: someone asking how a command works gets the answer, not a usage error.
 */
export function parseFlags(argv: readonly string[], known: readonly string[], booleans: readonly string[] = []): Parsed {
  if (argv.includes('--help')) return { positionals: [], flags: new Map([['help', 'true']]) };
  const positionals: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg !== '-') throw new ClientUsageError(`unknown option ${arg}`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (booleans.includes(name)) {
      if (eq >= 0) throw new ClientUsageError(`--${name} takes no value`);
      flags.set(name, 'true');
      continue;
    }
    if (!known.includes(name)) throw new ClientUsageError(`unknown option --${name}`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new ClientUsageError(`--${name} needs a value`);
    if (flags.has(name)) throw new ClientUsageError(`--${name} is given twice`);
    flags.set(name, value);
  }
  return { positionals, flags };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const RESERVED = new Set(['revisions', 'rollback', 'restore', 'purge', 'favicon', 'events', 'deleted']);

/** `docs/app` → group `docs`, slug `app` (spec §1: 1–3 labels, the last one the slug). */
export function parseSite(text: string): { group: string; slug: string } {
  const labels = text.split('/');
  if (labels.length > 3 || labels.some((l) => l.length > 63 || !LABEL.test(l))) {
    throw new ClientUsageError(`--site ${JSON.stringify(text)} is not GROUP/SLUG (1 to 3 labels of lowercase letters, digits and inner hyphens)`);
  }
  const slug = labels.pop()!;
  if (RESERVED.has(slug)) throw new ClientUsageError(`--site: the slug ${JSON.stringify(slug)} is reserved`);
  return { group: labels.join('/'), slug };
}
