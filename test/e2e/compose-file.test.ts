/**
 * docker-compose.yml cannot be started on the build machines (no Docker engine), so what a
 * cold start depends on is checked in the file itself (issue 32 item 1): every server has a
 * health check, every image a pinned tag, nothing starts before what it needs is healthy
 * (short-form `depends_on` only waits for a container to start), and the replica set is
 * initiated by a one-shot service the instances wait for, not by a health check.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

type Service = {
  image?: string;
  build?: string;
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string }> | string[];
  restart?: string;
  command?: string[] | string;
  environment?: Record<string, string>;
};

const compose = parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

describe('docker-compose.yml', () => {
  it('pins every image to a release (no latest, no bare major version)', () => {
    for (const [name, s] of Object.entries(services)) {
      if (!s.image) continue;
      const tag = s.image.split(':')[1] ?? '';
      expect(tag, name).not.toBe('');
      expect(tag, name).not.toMatch(/latest/);
      expect(tag, `${name}: ${s.image}`).toMatch(/^\d+\.\d+\.\d+|^RELEASE\.\d{4}-\d{2}-\d{2}T/);
    }
  });

  it('gives every long-running service a health check', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.restart === 'no') continue; // one-shot
      expect(s.healthcheck?.test, name).toBeDefined();
    }
  });

  it('starts nothing before what it needs is healthy, or has completed', () => {
    for (const [name, s] of Object.entries(services)) {
      if (!s.depends_on) continue;
      expect(Array.isArray(s.depends_on), `${name}: short-form depends_on only waits for containers to start`).toBe(false);
      for (const [on, { condition }] of Object.entries(s.depends_on as Record<string, { condition: string }>)) {
        const expected = services[on]!.restart === 'no' ? 'service_completed_successfully' : 'service_healthy';
        expect(condition, `${name} → ${on}`).toBe(expected);
      }
    }
    for (const instance of ['sites-1', 'sites-2']) {
      expect(Object.keys(services[instance]!.depends_on as object).sort()).toEqual(['eventstore', 'minio', 'mongo', 'mongo-init']);
      expect(services[instance]!.environment?.SITES_STORE_WAIT).toMatch(/^\d+s$/);
    }
  });

  it('initiates the replica set in a one-shot service that waits for a primary, not in a health check', () => {
    expect(JSON.stringify(services.mongo!.healthcheck)).not.toMatch(/initiate/);
    const init = services['mongo-init']!;
    const script = Array.isArray(init.command) ? init.command.join('\n') : String(init.command);
    expect(script).toMatch(/rs\.initiate\(/);
    expect(script).toMatch(/NotYetInitialized/); // an initiated set is left alone on every later start
    expect(script).toMatch(/isWritablePrimary/);
    expect(services['sites-1']!.environment?.SITES_MONGO_URL).toMatch(/replicaSet=rs0/);
  });
});
