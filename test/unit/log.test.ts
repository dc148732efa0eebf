import { describe, expect, it } from 'vitest';
import { auditTo, createLogger } from '../../host/log.ts';

const capture = (format: 'text' | 'json', level: 'debug' | 'info' | 'warn' | 'error' = 'info') => {
  const lines: string[] = [];
  return { log: createLogger({ logFormat: format, logLevel: level }, (line) => lines.push(line)), lines };
};

const TOKEN = `key_${'a1B2'.repeat(10)}xyz`;
const MCP = `mcpa_${'f'.repeat(32)}.${'Q'.repeat(43)}`;

describe('the service log (pino)', () => {
  it('json: one object per line with level, time and msg', () => {
    const { log, lines } = capture('json');
    log.info('hello', { site: 'docs/app', n: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), msg: 'hello', site: 'docs/app', n: 3 });
  });

  it('text: one readable line, values with spaces or newlines quoted', () => {
    const { log, lines } = capture('text');
    log.warn('denied', { status: 401, route: '/api/keys', client: '203.0.113.9', reason: 'two words', error: 'Error: x\n    at y' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ WARN denied status=401 route=\/api\/keys client=203\.0\.113\.9 reason="two words" error="Error: x\\n    at y"\n$/);
  });

  it('drops what is below the level', () => {
    const { log, lines } = capture('json', 'warn');
    log.info('no');
    log.debug('no');
    log.error('yes');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['yes']);
  });

  it('never writes a credential, even one a message or field quotes', () => {
    for (const format of ['json', 'text'] as const) {
      const { log, lines } = capture(format);
      log.error(`failed with ${TOKEN}`, { error: `Authorization: Bearer ${MCP}`, nested: { list: [TOKEN, `x ${MCP} y`] }, header: 'Bearer opaque-secret' });
      const out = lines.join('');
      expect(out).not.toContain(TOKEN);
      expect(out).not.toContain(MCP);
      expect(out).not.toContain('opaque-secret');
      expect(out).toContain('[redacted]');
    }
  });

  it('writes audit entries at warn for 401/403, error for failures, info otherwise', () => {
    const { log, lines } = capture('json');
    const audit = auditTo(log);
    const base = { actor: 'anonymous', action: 'publish', method: 'POST', route: '/ingest/sites', client: '127.0.0.1', ms: 1 } as const;
    audit({ ...base, kind: 'write', outcome: 'ok', status: 200 });
    audit({ ...base, kind: 'write', outcome: 'refused', status: 401 });
    audit({ ...base, kind: 'denied', outcome: 'refused', status: 403 });
    audit({ ...base, kind: 'write', outcome: 'refused', status: 409 });
    audit({ ...base, kind: 'write', outcome: 'failed', status: 500 });
    expect(lines.map((l) => [JSON.parse(l).level, JSON.parse(l).msg])).toEqual([
      ['info', 'write'],
      ['warn', 'write'],
      ['warn', 'denied'],
      ['info', 'write'],
      ['error', 'write'],
    ]);
  });
});
