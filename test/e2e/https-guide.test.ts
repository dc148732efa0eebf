/**
 * docs/how-to/https.md is meant to be pasted: the files its blocks write must be what the service and
 * Debian's Caddy accept, and agree with each other (the service's listen address is what Caddy
 * proxies to and asks; Caddy's peer address is the trusted proxy; the unit starts Node with the
 * flags `npm start` uses). The running setup itself is test/e2e/caddy-recipe.test.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { inCidrs, loadConfig } from '../../host/config.ts';
import { SERVE_NODE_FLAGS } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CADDY = process.env.CADDY_PATH ?? '/usr/bin/caddy';
const exec = promisify(execFile);

/** The files the guide writes with `cat > FILE <<'EOF'` (or `>>`), by path, in order. */
async function guideFiles(): Promise<Map<string, { text: string; append: boolean }>> {
  const guide = await readFile(join(ROOT, 'docs', 'how-to', 'https.md'), 'utf8');
  const files = new Map<string, { text: string; append: boolean }>();
  for (const m of guide.matchAll(/^cat (>>?) (\S+) <<'EOF'\n([\s\S]*?)\nEOF$/gm)) files.set(m[2]!, { text: `${m[3]!}\n`, append: m[1] === '>>' });
  return files;
}

/** `KEY=value` lines (an env file) or `Environment=KEY=value` lines (a systemd drop-in). */
function envOf(text: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(new RegExp(`^${prefix}([A-Z_]+)=(.*)$`, 'gm'))) out[m[1]!] = m[2]!;
  return out;
}

describe('docs/how-to/https.md, pasted', () => {
  it("writes a service environment the service accepts, and a unit that starts it like npm start", async () => {
    const files = await guideFiles();
    const env = envOf(files.get('/etc/sites.env')!.text);
    const config = loadConfig(env);
    expect(config.baseDomain).toBe('sites.example.com');
    expect(config.publicScheme).toBe('https');
    expect(config.listen).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(inCidrs('127.0.0.1', config.trustedProxies)).toBe(true);
    const unit = files.get('/etc/systemd/system/sites.service')!.text;
    expect(unit).toContain('EnvironmentFile=/etc/sites.env');
    expect(unit).toMatch(new RegExp(`^ExecStart=/usr/bin/env node ${SERVE_NODE_FLAGS.join(' ')} bin/sites.mjs serve$`, 'm'));
  });

  it.skipIf(!existsSync(CADDY) && !process.env.CI)("writes a Caddyfile and environment Caddy accepts, pointed at the service's listen address", async () => {
    const files = await guideFiles();
    const service = loadConfig(envOf(files.get('/etc/sites.env')!.text));
    const caddyEnv = envOf(files.get('/etc/systemd/system/caddy.service.d/sites.conf')!.text, 'Environment=');
    expect(caddyEnv.SITES_DOMAIN).toBe(service.baseDomain);
    expect(caddyEnv.SITES_UPSTREAMS).toBe(`${service.listen.host}:${service.listen.port}`);
    expect(caddyEnv.SITES_ASK).toBe(`${service.listen.host}:${service.listen.port}`);
    const appended = files.get('/etc/caddy/Caddyfile')!;
    expect(appended.append).toBe(true);

    const dir = await mkdtemp(join(tmpdir(), 'sites-https-guide-'));
    try {
      const caddyfile = join(dir, 'Caddyfile');
      await writeFile(caddyfile, (await readFile(join(ROOT, 'deploy', 'Caddyfile'), 'utf8')) + appended.text);
      const run = (cmd: string) => exec(CADDY, [cmd, '--config', caddyfile, '--adapter', 'caddyfile'], { env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, ...caddyEnv } });
      expect((await run('validate')).stdout).toContain('Valid configuration');
      const adapted = JSON.parse((await run('adapt')).stdout);
      expect(adapted.apps.tls.automation.on_demand.ask).toBe(`http://${caddyEnv.SITES_ASK}/tls/ask`);
      const hosts = JSON.stringify(adapted.apps.http.servers).match(/"host":\["[^"]+"\]/g);
      expect(hosts?.sort()).toEqual(['"host":["auth.example.com"]', '"host":["sites.example.com"]']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
