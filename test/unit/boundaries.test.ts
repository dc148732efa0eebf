/**
 * The folder boundaries (docs/explanation/design.md, "Folders and who may import whom"): `npm run check:boundaries` (dependency-cruiser
 * with .dependency-cruiser.cjs) must report no violation, so `npm test`, and CI with it,
 * fails on an import across a boundary. A planted tree that breaks every rule once shows
 * that the rules do fire.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const configFile = `${root}.dependency-cruiser.cjs`;
const planted = fileURLToPath(new URL('../support/boundaries/', import.meta.url));

const shown = (violations: readonly IViolation[]) => violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).join('\n');

describe('folder boundaries', () => {
  it('npm run check:boundaries finds no import across a boundary', () => {
    const run = spawnSync('npm', ['run', '--silent', 'check:boundaries', '--', '--output-type', 'json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(run.stdout, run.stderr).toMatch(/^\s*\{/);
    const result = JSON.parse(run.stdout) as ICruiseResult;
    // The cruise saw the source tree, packages and built-ins included (an empty cruise would pass vacuously).
    expect(result.summary.totalCruised).toBeGreaterThan(250);
    const edges = result.modules.flatMap((m) => m.dependencies.map((d) => `${m.source} → ${d.resolved}`));
    expect(edges).toEqual(expect.arrayContaining(['api/auth.ts → domain/auth.ts', 'domain/tokens.ts → crypto']));
    expect(edges.some((e) => /^domain\/site\/lifecycle\.ts → node_modules\/xstate\//.test(e))).toBe(true);
    expect(shown(result.summary.violations), 'imports across a folder boundary').toBe('');
    expect(run.status).toBe(0);
  });

  it('every rule fires on a tree that breaks it', async () => {
    const options = await extractDepcruiseOptions(configFile);
    const folders = ['domain', 'projections', 'app', 'api', 'host', 'client', 'mcp'];
    const { output } = await cruise(folders, { ...options, baseDir: planted });
    const { violations } = (output as ICruiseResult).summary;
    const rules = (createRequire(import.meta.url)(configFile) as IConfiguration).forbidden!.map((r) => r.name);
    expect(new Set(violations.map((v) => v.rule.name)), shown(violations)).toEqual(new Set(rules));
    const expected = [
      'app-only-core: app/uses-api.ts → api/uses-host.ts',
      'client-stands-alone: client/uses-domain.ts → domain/impure.ts',
      'core-without-adapters: app/does-io.ts → fs',
      expect.stringMatching(/^core-without-adapters: domain\/impure\.ts → (\.\.\/)+node_modules\/koa\//),
      'diary-stands-alone: mcp/diary/uses-service.ts → api/uses-host.ts',
      'domain-is-pure: domain/impure.ts → host/root.ts',
      'edges-call-use-cases: api/authorizes.ts → projections/uses-app.ts',
      'no-authorization-at-the-edge: api/authorizes.ts → app/authorize.ts',
      'mcp-tools-without-http: mcp/sites/tools/uses-http.ts → api/uses-host.ts',
      'no-circular: api/cycle-a.ts → api/cycle-b.ts',
      expect.stringMatching(/^domain-is-pure: domain\/impure\.ts → (\.\.\/)+node_modules\/koa\//),
      'host-only-from-composition-root: api/uses-host.ts → host/root.ts',
      'host-only-from-composition-root: domain/impure.ts → host/root.ts',
      'projections-only-domain: projections/uses-app.ts → app/uses-api.ts',
      'resolvable: mcp/sites/uses-diary.ts → ./nowhere.ts',
      'service-without-diary: mcp/sites/uses-diary.ts → mcp/diary/uses-service.ts',
    ];
    const lines = shown(violations).split('\n');
    expect(lines, shown(violations)).toHaveLength(expected.length);
    expect(lines).toEqual(expect.arrayContaining(expected));
  });

  it('the edges reach the ports only through use cases, and authorize nothing themselves', async () => {
    // What dependency-cruiser cannot see, a property access: an HTTP route, an MCP tool or a CLI
    // command reading `deps.queries` (or any port) or checking a capability itself.
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const files = (dir: string): string[] =>
      readdirSync(`${root}${dir}`).flatMap((name) => {
        const path = `${dir}/${name}`;
        return statSync(`${root}${path}`).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });
    const offending = ['api', 'mcp/sites', 'host/cli'].flatMap(files).flatMap((file) => {
      const text = readFileSync(`${root}${file}`, 'utf8');
      return [/deps\.(queries|blobIndex|deploys|events|blobs)\b/, /\b(authorize|authorizeSite|authorizeAddress|requireAdmin|requireApprover|authorizeCertificateAsk)\(/, /\bcan\(/]
        .filter((pattern) => pattern.test(text))
        .map((pattern) => `${file}: ${pattern}`);
    });
    expect(offending).toEqual([]);
  });
});
