import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SECTIONS, SETTINGS, type Setting } from '../config-settings.ts';
import { projectRoot } from '../root.ts';

/**
 * The two references written from the code rather than by hand (`npm run docs`): the
 * configuration from the settings table the loader reads, the CLI from the CLI's own
 * `--help`. test/unit/docs-generated.test.ts fails when the committed pages differ.
 */

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The configuration reference: one table per section, in the order of the settings table. */
export function configurationReference(): string {
  const rows = Object.entries(SETTINGS) as [string, Setting<unknown>][];
  const out: string[] = [];
  for (const section of SECTIONS) {
    const inSection = rows.filter(([, s]) => s.section === section);
    if (inSection.length === 0) continue;
    out.push(`### ${section}`, '', '| Variable | Default | Value | Meaning |', '| --- | --- | --- | --- |');
    for (const [name, s] of inSection) {
      const fallback = s.defaultDoc ?? (s.default === undefined ? '–' : `\`${s.default}\``);
      out.push(`| \`${name}\` | ${cell(fallback)} | ${cell(s.type.format)} | ${cell(s.doc)} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

type Run = (args: readonly string[]) => Promise<{ stdout: string; code: number }>;

/**
 * Runs the real `sites` executable with a bare environment: no SITES_* variable of the
 * caller's shell may change what the help says (the default URL follows SITES_LISTEN_ADDR),
 * and the data folder is a throw-away one in case a command opens it.
 */
async function withCli<T>(use: (run: Run) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'sites-docs-'));
  const exec = promisify(execFile);
  const run: Run = async (args) => {
    const env = { PATH: process.env.PATH ?? '', HOME: dir, SITES_DATA_DIR: join(dir, 'data'), SITES_CACHE_DIR: 'off' };
    try {
      const { stdout } = await exec(process.execPath, [join(projectRoot, 'bin', 'sites.mjs'), ...args], { cwd: projectRoot, env, timeout: 60_000 });
      return { stdout, code: 0 };
    } catch (err) {
      const e = err as { stdout?: string; code?: number };
      return { stdout: e.stdout ?? '', code: typeof e.code === 'number' ? e.code : 1 };
    }
  };
  try {
    return await use(run);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The command words of the overview: the first word of each indented line under "usage". */
export function commandsOf(overview: string): string[] {
  const words = overview
    .split('\n')
    .filter((l) => /^ {2}[a-z]/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]!);
  return [...new Set(words)];
}

/** The CLI reference: `sites --help`, then `sites COMMAND --help` for every command it lists. */
export async function cliReference(): Promise<string> {
  return withCli(async (run) => {
    const overview = await run(['--help']);
    if (overview.code !== 0) throw new Error(`sites --help exited with ${overview.code}`);
    const out = ['### `sites --help`', '', '```text', overview.stdout.trimEnd(), '```'];
    for (const command of commandsOf(overview.stdout)) {
      const help = await run([command, '--help']);
      if (help.code !== 0) throw new Error(`sites ${command} --help exited with ${help.code}`);
      out.push('', `### \`sites ${command} --help\``, '', '```text', help.stdout.trimEnd(), '```');
    }
    return out.join('\n');
  });
}
