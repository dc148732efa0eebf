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

/** `docs/app` → group `docs`, slug `app` (spec §1: 1–3 labels, the last one the slug; no `--`, kept for preview hosts). */
export function parseSite(text: string, what = '--site'): { group: string; slug: string } {
  const labels = text.split('/');
  if (labels.length > 3 || labels.some((l) => l.length > 63 || !LABEL.test(l))) {
    throw new ClientUsageError(`${what} ${JSON.stringify(text)} is not GROUP/SLUG (1 to 3 labels of lowercase letters, digits and inner hyphens)`);
  }
  if (labels.some((l) => l.includes('--'))) throw new ClientUsageError(`${what} ${JSON.stringify(text)}: "--" is reserved for preview and permalink hosts`);
  const slug = labels.pop()!;
  if (RESERVED.has(slug)) throw new ClientUsageError(`${what}: the slug ${JSON.stringify(slug)} is reserved`);
  return { group: labels.join('/'), slug };
}

/**
 * A preview's name (spec §14): a label without `--`, not a permalink's `v<digits>`, and short
 * enough that the host label `<name>--<slug>` stays within 63 characters. Checked here so a
 * CI job's typo fails before the folder is hashed, with the same words as the service's.
 */
export function parsePreviewName(name: string, slug: string): string {
  if (!LABEL.test(name) || name.includes('--')) {
    throw new ClientUsageError(`--preview ${JSON.stringify(name)} is not a preview name (lowercase letters, digits and single inner hyphens, e.g. pr-42)`);
  }
  if (/^v\d+$/.test(name)) throw new ClientUsageError(`--preview ${JSON.stringify(name)}: v<number> names a revision's permalink; choose another name (e.g. pr-42)`);
  if (name.length + 2 + slug.length > 63) throw new ClientUsageError(`--preview ${JSON.stringify(name)} is too long for the site ${JSON.stringify(slug)}: "${name}--${slug}" must fit in 63 characters`);
  return name;
}
