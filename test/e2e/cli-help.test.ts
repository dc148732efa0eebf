/**
 * Issue 30, "CLI and action": a newcomer who types `--help` gets the usage on stdout and
 * status 0, from the `sites` executable and from the client the service hands out, and
 * the usage names what they need to know: SITES_URL, SITES_KEY, the digest cache and the
 * rules for what is left out. Bad usage keeps status 2 and one line (spec §9).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient, servedClient } from '../../host/client-bundle.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'sites.mjs');
let work: string;
let client: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sites-help-'));
  // Byte for byte what GET /cli/sites.mjs serves from this origin (test/e2e/client-download.test.ts checks that equality).
  client = join(work, 'sites.mjs');
  await writeFile(client, servedClient(await buildClient(), 'https://sites.example.com'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

type Ran = { code: number; stdout: string; stderr: string };

async function node(args: string[]): Promise<Ran> {
  try {
    // A data folder that does not exist: help must not need the service's storage.
    const { stdout, stderr } = await run(process.execPath, args, { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work, SITES_DATA_DIR: join(work, 'none') } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}
const sites = (...args: string[]) => node([BIN, ...args]);
const downloaded = (...args: string[]) => node([client, ...args]);

function expectHelp(r: Ran, firstLine: RegExp): string {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout.split('\n')[0]).toMatch(firstLine);
  return r.stdout;
}

/** What a newcomer must learn from the publishing help. */
function expectPublishingFacts(text: string): void {
  for (const name of ['SITES_URL', 'SITES_KEY', 'SITES_CACHE_DIR', 'digest cache', '.sitesignore', '--include-dotfiles', 'node_modules/', '.well-known/']) expect(text, name).toContain(name);
}

describe('sites --help', () => {
  it('`sites --help` and `sites help` print the commands and the publishing environment, status 0', async () => {
    const text = expectHelp(await sites('--help'), /^usage: sites <command>/);
    for (const command of ['serve', 'keys create', 'keys list', 'keys revoke', 'publish DIR', 'mcp connections', 'replay', 'gc']) expect(text).toContain(command);
    expectPublishingFacts(text);
    expect((await sites('help')).stdout).toBe(text);
  });

  it('`sites publish --help` explains the flags, the environment and what is left out, whatever else is on the line', async () => {
    const text = expectHelp(await sites('publish', '--help'), /^usage: sites publish DIR --site GROUP\/SLUG /);
    expectPublishingFacts(text);
    expect(text).toContain('app.docs.<base domain>');
    expect((await sites('publish', 'dist', '--bogus', '--help')).stdout).toBe(text);
    expect((await sites('help', 'publish')).stdout).toBe(text);
  });

  it('`sites keys --help` (and `keys create --help`) explain the key commands and the capabilities', async () => {
    const text = expectHelp(await sites('keys', '--help'), /^usage: sites keys create --name NAME /);
    for (const word of ['keys list', 'keys revoke --id ID', '--grant GROUP:CAPS', '--grant-site GROUP/SLUG:CAPS', 'publish, unpublish, rollback, patch, purge', '--expires-in']) expect(text).toContain(word);
    expect((await sites('keys', 'create', '--help')).stdout).toBe(text);
    expect((await sites('help', 'keys')).stdout).toBe(text);
  });

  it('`sites previews --help` explains list and remove, and `publish --help` the preview flags', async () => {
    const text = expectHelp(await sites('previews', '--help'), /^usage: sites previews list GROUP\/SLUG /);
    for (const word of ['sites previews remove GROUP/SLUG NAME', '--if-exists', '--github-comment', '--pull-request N', 'NAME--SLUG.GROUP.<base>', 'SITES_KEY']) expect(text).toContain(word);
    expect((await sites('help', 'previews')).stdout).toBe(text);
    expect((await sites('previews', 'remove', '--bogus', '--help')).stdout).toBe(text);
    const publish = (await sites('publish', '--help')).stdout;
    for (const word of ['--preview NAME', 'https://NAME--SLUG.GROUP.<base domain>/', 'preview capability', '--github-comment', 'GITHUB_TOKEN']) expect(publish).toContain(word);
  });

  it('every other command has its help too', async () => {
    for (const command of ['serve', 'mcp', 'replay', 'project', 'gc']) expectHelp(await sites(command, '--help'), new RegExp(`^usage: sites ${command}`));
  });

  it('bad usage is still status 2 and one line', async () => {
    for (const args of [['publish', '--bogus'], ['keys'], ['keys', 'frob'], ['frob', '--help'], ['serve', 'extra']]) {
      const r = await sites(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});

describe('the downloaded client’s --help', () => {
  it('`node sites.mjs --help` and `node sites.mjs publish --help` print the usage with the service it came from, status 0', async () => {
    const overview = expectHelp(await downloaded('--help'), /^sites publishing client \S+: publishes a folder to https:\/\/sites\.example\.com \(or SITES_URL\)$/);
    const text = expectHelp(await downloaded('publish', '--help'), /^usage: node sites\.mjs publish DIR --site GROUP\/SLUG /);
    expectPublishingFacts(text);
    expect(text).toContain('--url URL            the service (default: SITES_URL, else https://sites.example.com)');
    expect(overview).toContain(text);
    expect(overview).toContain('Also: node sites.mjs previews list GROUP/SLUG');
    const previews = expectHelp(await downloaded('previews', '--help'), /^usage: node sites\.mjs previews list GROUP\/SLUG /);
    expect(previews).toContain('--url URL        the service (default: SITES_URL, else https://sites.example.com)');
    expect((await downloaded('help', 'previews')).stdout).toBe(previews);
  });

  it('bad usage is still status 2 and one line', async () => {
    for (const args of [[], ['publish'], ['publish', 'dist', '--bogus'], ['frob'], ['previews'], ['previews', 'remove', 'docs/app']]) {
      const r = await downloaded(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});
