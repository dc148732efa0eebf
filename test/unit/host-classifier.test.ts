import { describe, expect, it } from 'vitest';
import { classifyHost, type HostNames } from '../../domain/hosts.ts';
import { hostClassifier } from '../../host/hosts.ts';

const names: HostNames = { apexes: ['sites.test', 'alias.test'], direct: ['localhost', '127.0.0.1'], siteless: [] };

describe('hostClassifier (the HTTP server’s remembered classifyHost)', () => {
  const headers = [
    'app.docs.sites.test',
    'APP.docs.sites.test:8080',
    'pr-1--app.docs.sites.test',
    'v7--app.docs.sites.test.',
    'sites.test',
    'localhost:8080',
    '127.0.0.1',
    'example.org',
    'a..b.sites.test',
    'x'.repeat(400) + '.sites.test',
    '',
    undefined,
  ];

  it('answers what classifyHost answers, the first time and again', () => {
    const classify = hostClassifier(names);
    for (const round of [1, 2]) {
      for (const host of headers) expect(classify(host), `${round}: ${host}`).toEqual(classifyHost(host, names));
    }
  });

  it('answers a header it has seen from memory, and still answers right past its bound', () => {
    const classify = hostClassifier(names);
    const first = classify('app.docs.sites.test');
    expect(classify('app.docs.sites.test')).toBe(first);
    for (let i = 0; i < 10_001; i++) classify(`s${i}.docs.sites.test`);
    expect(classify('s10000.docs.sites.test')).toEqual({ kind: 'site', address: { group: 'docs', slug: 's10000' }, apex: 'sites.test' });
    expect(classify('app.docs.sites.test')).toEqual(first);
  });
});
