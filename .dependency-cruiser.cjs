/**
 * The allowed arrows between the folders (docs/explanation/design.md, "Folders and who may import whom"; shared DESIGN.md, "Folder
 * layout"). `npm run check:boundaries` prints violations; test/unit/boundaries.test.ts
 * runs the same check, so `npm test` (and CI) fails on one.
 */

/** The publishing service's folders (mcp/diary is a separate service). */
const SERVICE = '^(domain|projections|app|api|host|portal|client|mcp/sites)/';
/** Engines, web frameworks, parsers and SDKs: for the adapters (api/, mcp/, host/), never for the core. */
const ADAPTERS = '(^|/)node_modules/(koa|@koa/[^/]+|mongodb|minio|@eventstore/[^/]+|better-sqlite3|busboy|yauzl|tar-stream|jszip|@modelcontextprotocol/[^/]+)/';
/** Node built-ins that do I/O. */
const IO_BUILTINS = '^(node:)?(http|https|http2|net|tls|dgram|fs|fs/promises|child_process|worker_threads|cluster)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ imports only domain/ and pure packages (xstate; node:crypto for hashes and tokens; node:stream for the type of a port).',
      from: { path: '^domain/' },
      to: { pathNot: ['^domain/', '(^|/)node_modules/xstate/', '^(node:)?(crypto|stream)$'] },
    },
    {
      name: 'projections-only-domain',
      severity: 'error',
      comment: 'projections/ imports only projections/ and domain/.',
      from: { path: '^projections/' },
      to: { pathNot: ['^projections/', '^domain/'] },
    },
    {
      name: 'app-only-core',
      severity: 'error',
      comment: 'app/ (use cases) imports app/, domain/ and projections/: never the HTTP layer, the connectors, the UI or the composition root.',
      from: { path: '^app/' },
      to: { path: '^(api|host|mcp|portal|client|bin)/' },
    },
    {
      name: 'core-without-adapters',
      severity: 'error',
      comment: 'domain/, projections/ and app/ never touch an engine, a web framework or network/file I/O: only host/ knows which adapter runs.',
      from: { path: '^(domain|projections|app)/' },
      to: { path: [ADAPTERS, IO_BUILTINS] },
    },
    {
      name: 'edges-call-use-cases',
      severity: 'error',
      comment:
        'The edges (api/, mcp/sites/) call a use case of app/ for every command and query: they never read projected documents (projections/), run the command cycle (app/command, app/aggregates, app/ids, app/gate) or ask a decider themselves.',
      from: { path: '^(api|mcp/sites)/' },
      to: { path: ['^projections/', '^app/(command|aggregates|ids|gate)\\.ts$', '^domain/[^/]+/decide\\.ts$'] },
    },
    {
      name: 'no-authorization-at-the-edge',
      severity: 'error',
      comment: 'Every capability and admin check lives in the use cases (app/authorize.ts): HTTP routes, MCP tools, the CLI and the composition root only authenticate.',
      from: { path: '^(api|mcp|host)/' },
      to: { path: '^app/authorize\\.ts$' },
    },
    {
      name: 'mcp-tools-without-http',
      severity: 'error',
      comment: 'MCP tools share the use cases and app/contract/ with the HTTP routes, never the HTTP layer itself.',
      from: { path: '^mcp/sites/tools/' },
      to: { path: '^api/' },
    },
    {
      name: 'host-only-from-composition-root',
      severity: 'error',
      comment: 'host/ is the composition root: only host/, bin/ and the tests import it (api/ and mcp/ get configuration and hooks injected).',
      from: { pathNot: '^(host|bin|test)/' },
      to: { path: '^host/' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment:
        'client/ is bundled and shipped alone (GET /cli/sites.mjs): client/, Node built-ins and `ignore` (the .sitesignore matcher, bundled in; dependency-free) only.',
      from: { path: '^client/' },
      to: { pathNot: ['^client/', '(^|/)node_modules/ignore/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'diary-stands-alone',
      severity: 'error',
      comment: 'mcp/diary/ is a separate service: it never imports the publishing service, nor the other way round.',
      from: { path: '^mcp/diary/' },
      to: { path: SERVICE },
    },
    {
      name: 'service-without-diary',
      severity: 'error',
      comment: 'The publishing service never imports the diary tool server.',
      from: { path: SERVICE },
      to: { path: '^mcp/diary/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycles, type-only ones included: a cycle makes load order matter (a value read before its module ran is undefined) and ties files that the layers above keep apart. A shared type moves to a file of its own (api/audit-entry.ts, domain/webhook/names.ts, portal/src/view-context.ts).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resolvable',
      severity: 'error',
      comment: 'Every import resolves; an unresolved one would slip past the rules above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports count: a `Config` type from host/ couples api/ to host/ all the same.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.mjs', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
