/** Minimal flag parser: `--name value`, `--name=value`, repeated flags, booleans, positionals. */
export type Parsed = {
  positionals: string[];
  flags: Map<string, string[]>;
  /** A last flag with no value; `only` reports it after unknown flags, so a typo is named as one. */
  valueMissing?: string;
};

export class UsageError extends Error {}

export function parseArgs(argv: readonly string[], booleans: readonly string[] = []): Parsed {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (booleans.includes(name)) value = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) {
        flags.set(name, flags.get(name) ?? []);
        return { positionals, flags, valueMissing: name };
      }
      value = next;
      i++;
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positionals, flags };
}

export function only(parsed: Parsed, allowed: readonly string[]): void {
  for (const name of parsed.flags.keys()) {
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
  }
  // Single-dash flags are not supported; naming them beats ignoring them as arguments.
  const dashed = parsed.positionals.find((p) => /^-[^-]/.test(p));
  if (dashed) throw new UsageError(`unknown option ${dashed}`);
  if (parsed.valueMissing !== undefined) throw new UsageError(`--${parsed.valueMissing} needs a value`);
}

/** For commands that take no positional arguments: a stray word is a mistake worth naming. */
export function noArguments(parsed: Parsed): void {
  if (parsed.positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
}

export function single(parsed: Parsed, name: string): string | undefined {
  const values = parsed.flags.get(name);
  if (values && values.length > 1) throw new UsageError(`--${name} given more than once`);
  return values?.[0];
}
