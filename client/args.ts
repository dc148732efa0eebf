import { ClientUsageError } from './errors.ts';

export type Parsed = { readonly positionals: string[]; readonly flags: Map<string, string> };

/** `--name value` and `--name=value` flags and positionals; every flag takes a value. */
export function parseFlags(argv: readonly string[], known: readonly string[]): Parsed {
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
