/** Start-up configuration: the HTTP guard settings, and one clear line for a bad value. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readConfig, type Config } from '../../mcp/diary/config.ts';
import { HTTP_DEFAULTS } from '../../mcp/diary/http.ts';
import { DIARY_ARGS, ROOT } from './helpers.ts';

const BASE = { DIARY_EMAIL: 'a@b.example', DIARY_PASSWORD: 'pw' };
const read = (env: Record<string, string>): Config | string => readConfig(['--http', '127.0.0.1:8090'], { ...BASE, ...env });
const ok = (env: Record<string, string>): Config => {
  const c = read(env);
  if (typeof c === 'string') throw new Error(c);
  return c;
};

describe('HTTP guard settings', () => {
  it('defaults: loopback only, 30-minute idle timeout, 100 sessions', () => {
    expect(ok({}).http).toEqual({ allowedHosts: [], idleMs: 1_800_000, maxSessions: 100 });
    expect(HTTP_DEFAULTS).toEqual({ allowedHosts: [], idleMs: 1_800_000, maxSessions: 100 });
    expect(ok({ DIARY_ALLOWED_HOSTS: '', DIARY_MAX_SESSIONS: '' }).http).toEqual(HTTP_DEFAULTS);
  });

  it('DIARY_ALLOWED_HOSTS: names as the Host check compares them (lower case, port dropped, IPv6 bracketed)', () => {
    const { http } = ok({ DIARY_ALLOWED_HOSTS: ' Diary.LAN:8090 ,10.0.0.7,[FE80::1]:80, mcp.example.org.,' });
    expect(http.allowedHosts).toEqual(['diary.lan', '10.0.0.7', '[fe80::1]', 'mcp.example.org.']);
  });

  it('session limits are read from the environment', () => {
    expect(ok({ DIARY_SESSION_IDLE_TIMEOUT_MS: '200', DIARY_MAX_SESSIONS: '3' }).http).toMatchObject({ idleMs: 200, maxSessions: 3 });
  });

  const bad: [string, string][] = [
    ['DIARY_ALLOWED_HOSTS', '*.lan'],
    ['DIARY_ALLOWED_HOSTS', 'http://diary.lan'],
    ['DIARY_ALLOWED_HOSTS', 'diary.lan/mcp'],
    ['DIARY_ALLOWED_HOSTS', 'fe80::1'],
    ['DIARY_ALLOWED_HOSTS', 'diary.lan:99999'],
    ['DIARY_ALLOWED_HOSTS', 'two words'],
    ['DIARY_ALLOWED_HOSTS', 'user@diary.lan'],
    ['DIARY_SESSION_IDLE_TIMEOUT_MS', '0'],
    ['DIARY_SESSION_IDLE_TIMEOUT_MS', '30m'],
    ['DIARY_SESSION_IDLE_TIMEOUT_MS', '-5'],
    ['DIARY_SESSION_IDLE_TIMEOUT_MS', '1.5'],
    ['DIARY_SESSION_IDLE_TIMEOUT_MS', '2147483648'], // past setTimeout's ceiling it would fire at once
    ['DIARY_MAX_SESSIONS', '0'],
    ['DIARY_MAX_SESSIONS', 'lots'],
    ['DIARY_HTTP_TIMEOUT_MS', '1e3'],
    ['DIARY_HTTP_TIMEOUT_MS', '9999999999'],
  ];
  it.each(bad)('%s=%s is refused with one line naming the variable', (name, value) => {
    const c = read({ [name]: value });
    expect(typeof c).toBe('string');
    expect(c).toMatch(new RegExp(`^diary: ${name} `));
    expect(c).toContain(JSON.stringify(value.trim()));
    expect(c).not.toContain('\n');
  });

  it('a bad value stops start-up (stdio too) with one line on stderr', () => {
    const r = spawnSync(process.execPath, DIARY_ARGS, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...BASE, DIARY_MAX_SESSIONS: 'none' },
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual(['diary: DIARY_MAX_SESSIONS must be a whole number of sessions from 1 to 100000 (got "none")']);
  });
});
