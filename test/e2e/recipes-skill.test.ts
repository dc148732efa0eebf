/**
 * deploy/SKILL.md, exercised so that it cannot drift from the API. Convention: a fenced block
 * opened with ```` ```sh NAME ```` is runnable (GitHub and other renderers only read the first
 * word, `sh`); every other block (```json, ```text …) is an illustration. Each runnable block is
 * run as written by `bash -euo pipefail FILE`, against the real service, with the skill's
 * variables (its "What you need" table: SITES_URL, SITES_KEY, DIR, GROUP, SLUG, TITLE,
 * SITE_URL) set in the environment — the placeholders an assistant fills in. `publish-cli`
 * runs in this checkout, as the skill says.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseYaml } from '../support/mini-yaml.ts';
import { startService, type RunningService } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SKILL = join(ROOT, 'deploy', 'SKILL.md');
const RUNNABLE = ['preflight', 'publish-curl', 'publish-cli', 'check'] as const;
type Name = (typeof RUNNABLE)[number];
const SPEC_CODES = ['invalid', 'unauthenticated', 'forbidden', 'not_found', 'conflict', 'too_large', 'unsupported_media_type'];

let text: string;
let blocks: Record<Name, string>;
let svc: RunningService;
let key: string;
let work: string;

/** Fenced blocks: `{ info, body }`, in order. */
function fences(markdown: string): { lang: string; name?: string; body: string }[] {
  const out: { lang: string; name?: string; body: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(?:\s+(\S+))?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error('unclosed code fence');
    out.push({ lang: open[1]!, name: open[2], body: body.join('\n') + '\n' });
  }
  return out;
}

beforeAll(async () => {
  text = await readFile(SKILL, 'utf8');
  const runnable = fences(text).filter((f) => f.lang === 'sh');
  blocks = {} as Record<Name, string>;
  for (const f of runnable) {
    if (!f.name || !(RUNNABLE as readonly string[]).includes(f.name)) throw new Error(`a runnable block needs a known name (${RUNNABLE.join(', ')}), got ${f.name}`);
    if (blocks[f.name as Name]) throw new Error(`two runnable blocks named ${f.name}`);
    blocks[f.name as Name] = f.body;
  }
  svc = await startService();
  key = await svc.createKey(['--name', 'assistant', '--grant', 'docs:publish']);
  work = await mkdtemp(join(tmpdir(), 'sites-skill-'));
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

type Vars = { DIR: string; GROUP: string; SLUG: string; TITLE: string; SITES_KEY?: string; SITE_URL?: string };

function run(name: Name, vars: Vars): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const file = join(work, `${name}.sh`);
    writeFile(file, blocks[name]).then(() => {
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        LANG: 'C.UTF-8',
        TMPDIR: work,
        SITES_URL: svc.url,
        SITES_KEY: key,
        SITE_URL: svc.siteUrl(`${vars.GROUP}/${vars.SLUG}`),
        ...vars,
      };
      execFile('bash', ['-euo', 'pipefail', file], { cwd: ROOT, env, timeout: 20_000 }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    }, fail);
  });
}

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe('deploy/SKILL.md', () => {
  it('is an agent skill: front matter with a name and a description', () => {
    const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(m).not.toBeNull();
    const front = parseYaml(m![1]!) as Record<string, string>;
    expect(Object.keys(front).sort()).toEqual(['description', 'name']);
    expect(front.name).toMatch(/^[a-z0-9-]{1,64}$/);
    expect(front.description.length).toBeGreaterThan(50);
    expect(front.description.length).toBeLessThanOrEqual(1024);
  });

  it('has every runnable block, uses only the variables it documents, and holds no key', () => {
    expect(Object.keys(blocks).sort()).toEqual([...RUNNABLE].sort());
    const table = text.slice(text.indexOf('## What you need'), text.indexOf('## Choose'));
    const documented = new Set([...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]));
    expect([...documented].sort()).toEqual(['DIR', 'GROUP', 'SITES_KEY', 'SITES_URL', 'SITE_URL', 'SLUG', 'TITLE']);
    for (const [name, body] of Object.entries(blocks)) {
      for (const [, v] of body.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
        expect(documented.has(v!) || v === 'TMPDIR', `${name} uses $${v}`).toBe(true);
      }
    }
    expect(text).not.toMatch(/key_[A-Za-z0-9_-]{43}/);
  });

  it('check → preflight → publish-curl → check: a free name, a published site, its URL in the answer', async () => {
    const DIR = await folder('site', { 'index.html': '<h1>published by an assistant</h1>', 'css/site.css': 'body{}' });
    const vars = { DIR, GROUP: 'docs', SLUG: 'skill-curl', TITLE: 'Skill (curl)' };
    const url = svc.siteUrl('docs/skill-curl');
    expect((await run('check', vars)).stdout).toBe(`404 ${url}\n`);

    const pre = await run('preflight', vars);
    expect(pre).toMatchObject({ code: 0, stdout: 'ready to publish\n' });

    const pub = await run('publish-curl', vars);
    expect(pub.stderr).toBe('');
    expect(pub.code).toBe(0);
    const answer = JSON.parse(pub.stdout);
    expect(answer).toMatchObject({ url, group: 'docs', slug: 'skill-curl', site: { title: 'Skill (curl)' } });
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(['url', 'group', 'slug', 'updated_at', 'revision', 'site']));

    const after = await run('check', { ...vars, SITE_URL: answer.url });
    expect(after).toMatchObject({ code: 0, stdout: `200 ${url}\n` });
    expect(await (await fetch(`${url}css/site.css`)).text()).toBe('body{}');
  });

  it('publish-cli publishes the folder from this checkout and prints the URL', async () => {
    const DIR = await folder('cli-site', { 'index.html': '<h1>cli</h1>', 'a/b.txt': 'b' });
    const r = await run('publish-cli', { DIR, GROUP: 'docs', SLUG: 'skill-cli', TITLE: 'Skill (CLI)' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`published 2 files \\(2 new, 13 B uploaded\\) to ${svc.siteUrl('docs/skill-cli').replace(/\./g, '\\.')} \\(revision \\d{8}T\\d{6}\\.\\d{9}Z\\)`));
    expect(await (await fetch(svc.siteUrl('docs/skill-cli'))).text()).toBe('<h1>cli</h1>');
    // A refused publish is the one stderr line the skill describes, with status 1.
    const refused = await run('publish-cli', { DIR, GROUP: 'other', SLUG: 'skill-cli', TITLE: 'x' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/publish failed \(403\): /);
  });

  it('preflight refuses a folder with a key, with secret files, or without index.html, naming the files', async () => {
    const leaked = `key_${'A'.repeat(43)}`;
    const cases: [string, Record<string, string>, string][] = [
      ['with-key', { 'index.html': 'x', 'app.js': `const k = "${leaked}"` }, 'app.js'],
      ['with-env', { 'index.html': 'x', '.env.production': 'TOKEN=1' }, '.env.production'],
      ['with-git', { 'index.html': 'x', '.git/config': '[core]' }, '.git'],
      ['with-pem', { 'index.html': 'x', 'certs/server.pem': '-----' }, 'server.pem'],
      ['no-index', { 'page.html': 'x' }, ''],
    ];
    for (const [name, files, shown] of cases) {
      const r = await run('preflight', { DIR: await folder(name, files), GROUP: 'docs', SLUG: 'x', TITLE: 'x' });
      expect(r.code, name).not.toBe(0);
      expect(r.stdout, name).not.toContain('ready to publish');
      expect(r.stdout, name).toContain(shown);
    }
  });

  it('the errors it explains are the ones the service answers, in the shape it describes', async () => {
    const DIR = await folder('errors', { 'index.html': 'x' });
    const table = text.slice(text.indexOf('## Read the errors'), text.indexOf('## Never'));
    for (const code of SPEC_CODES) expect(table, code).toContain(`\`${code}\``);
    const cases: [Partial<Vars>, number, string][] = [
      [{ SITES_KEY: 'key_wrong' }, 401, 'unauthenticated'],
      [{ GROUP: 'other' }, 403, 'forbidden'],
      [{ SLUG: 'My_Report' }, 400, 'invalid'],
    ];
    for (const [override, status, code] of cases) {
      const r = await run('publish-curl', { DIR, GROUP: 'docs', SLUG: 'errs', TITLE: 'x', ...override });
      expect(r.code, code).toBe(22); // --fail-with-body
      expect(JSON.parse(r.stdout), code).toEqual({ error: expect.any(String), code });
      expect(table).toMatch(new RegExp(`^\\| ${status} \\| \`${code}\` \\|`, 'm'));
    }
  });

  it('the slugs it calls reserved are refused, and its label example is a valid slug', async () => {
    const DIR = await folder('reserved', { 'index.html': 'x' });
    const line = text.split('\n').find((l) => l.includes('cannot be a slug'))!;
    const words = [...line.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!);
    expect(words.sort()).toEqual(['deleted', 'events', 'favicon', 'purge', 'restore', 'revisions', 'rollback']);
    for (const SLUG of words) {
      const r = await run('publish-curl', { DIR, GROUP: 'docs', SLUG, TITLE: 'x' });
      expect(JSON.parse(r.stdout), SLUG).toMatchObject({ code: 'invalid' });
    }
    const example = /into `([^`]+)`/.exec(text)![1]!;
    const r = await run('publish-curl', { DIR, GROUP: 'docs', SLUG: example, TITLE: 'x' });
    expect(r.code).toBe(0);
  });
});
