/**
 * Issue 24, item 4, as the user's mistake: `sites publish dist` on a build folder that also
 * holds `.env`, `.git/config` (a token in the remote URL), `.DS_Store` and `node_modules/`.
 * Through the real CLI and the client downloaded from the service, none of them is sent or
 * served; `.well-known/security.txt` is; the command says what it left out; `.sitesignore`
 * and `--include-dotfiles` adjust the rules. (The action's step: test/e2e/action.test.ts.)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEFT_OUT_LINE, PUBLISHED, SECRETS, writeLeakyDist } from '../support/leaky-dist.ts';
import { startService, type RunningService } from '../support/service.ts';

const run = promisify(execFile);
let svc: RunningService;
let key: string;
let work: string;
let client: string;

beforeAll(async () => {
  svc = await startService();
  key = await svc.createKey(['--name', 'ci', '--grant', 'docs:publish']);
  work = await mkdtemp(join(tmpdir(), 'sites-leaves-out-'));
  client = join(work, 'sites.mjs');
  await writeFile(client, await (await fetch(`${svc.url}/cli/sites.mjs`)).text());
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The downloaded client with plain node and a bare environment, as a CI step runs it. */
async function downloaded(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [client, ...args], { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work, SITES_KEY: key } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

const status = async (site: string, path: string) => (await fetch(`${svc.siteUrl(site)}${path}`)).status;

/** Every secret answers 404 on the site, every site file its content. */
async function expectOnlyTheSite(site: string): Promise<void> {
  for (const secret of SECRETS) expect(await status(site, secret), secret).toBe(404);
  for (const [path, body] of Object.entries(PUBLISHED)) expect(await (await fetch(`${svc.siteUrl(site)}${path}`)).text(), path).toBe(body);
}

describe('a dist holding .env, .git/config, .DS_Store and node_modules/', () => {
  it('`sites publish` sends none of them, publishes .well-known/, and says how many it left out', async () => {
    const dist = join(work, 'cli-dist');
    await writeLeakyDist(dist);
    const r = await svc.cli(['publish', dist, '--site', 'docs/cli', '--title', 'CLI', '--key', key, '--url', svc.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${LEFT_OUT_LINE}sites publish --help says how to change it)\n`);
    expect(r.stdout).toMatch(/^published 3 files \(3 new, /);
    await expectOnlyTheSite('docs/cli');
    // The same folder again (a re-run CI job): the same files leave, and the service records nothing.
    const again = await svc.cli(['publish', dist, '--site', 'docs/cli', '--key', key, '--url', svc.url]);
    expect(again.stderr).toBe(r.stderr);
    expect(again.stdout).toMatch(/^published 3 files \(0 new, 0 B uploaded\) to \S+ \(revision \S+, nothing changed\)\n$/);
  });

  it('the client downloaded from /cli/sites.mjs does the same', async () => {
    const dist = join(work, 'client-dist');
    await writeLeakyDist(dist);
    const r = await downloaded(['publish', 'client-dist', '--site', 'docs/client', '--title', 'Client']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${LEFT_OUT_LINE}node sites.mjs publish --help says how to change it)\n`);
    expect(r.stdout).toMatch(/^published 3 files \(3 new, /);
    await expectOnlyTheSite('docs/client');
  });

  it('a .sitesignore leaves out more, and its "!" line publishes a dotfile the defaults leave out', async () => {
    const dist = join(work, 'ignore-dist');
    await writeLeakyDist(dist);
    await writeFile(join(dist, 'app.js.map'), '{}');
    await writeFile(join(dist, '.nojekyll'), '# not a Jekyll site\n');
    await writeFile(join(dist, '.sitesignore'), '# source maps stay private\n*.map\n!.nojekyll\n');
    const r = await svc.cli(['publish', dist, '--site', 'docs/ignore', '--title', 'Ignore', '--key', key, '--url', svc.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^sites: left out 4 files and 2 folders: \.DS_Store, \.env, \.git\/, app\.js\.map, assets\/\.DS_Store, and 1 more \(dotfiles, node_modules\/ and what \.sitesignore lists are not published; /);
    expect(r.stdout).toMatch(/^published 4 files /);
    await expectOnlyTheSite('docs/ignore');
    expect(await status('docs/ignore', 'app.js.map')).toBe(404);
    expect(await status('docs/ignore', '.nojekyll')).toBe(200);
    expect(await status('docs/ignore', '.sitesignore')).toBe(404);
  });

  it('--include-dotfiles publishes dotfiles, still not node_modules/ nor .sitesignore', async () => {
    const dist = join(work, 'dotfiles-dist');
    await writeLeakyDist(dist);
    await writeFile(join(dist, '.sitesignore'), '.git/\n');
    const r = await downloaded(['publish', 'dotfiles-dist', '--site', 'docs/dotfiles', '--title', 'Dotfiles', '--include-dotfiles']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^sites: left out 2 folders: \.git\/, node_modules\/ /);
    expect(r.stdout).toMatch(/^published 6 files /);
    for (const path of ['.env', '.DS_Store', 'assets/.DS_Store', '.well-known/security.txt']) expect(await status('docs/dotfiles', path), path).toBe(200);
    for (const path of ['.git/config', 'node_modules/left-pad/index.js', '.sitesignore']) expect(await status('docs/dotfiles', path), path).toBe(404);
  });

  it('a .sitesignore that leaves out index.html fails in one line before anything is sent', async () => {
    const dist = join(work, 'no-home');
    await writeLeakyDist(dist);
    await writeFile(join(dist, '.sitesignore'), '*.html\n');
    const r = await svc.cli(['publish', dist, '--site', 'docs/no-home', '--title', 'No home', '--key', key, '--url', svc.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sites: ${join(dist, '.sitesignore')} leaves out index.html, the site's home page\n`);
    expect(await status('docs/no-home', '')).toBe(404);
  });
});
