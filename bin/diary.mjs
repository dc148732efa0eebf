#!/usr/bin/env node
// The diary MCP server, launched without npm: `node bin/diary.mjs` (stdio) or
// `node bin/diary.mjs --http 127.0.0.1:8090`. MCP hosts should launch this file: `npm run`
// prints its banner on stdout before the server starts, and in stdio mode stdout is the
// JSON-RPC stream (`npm run -s diary` suppresses the banner too).
const { register } = await import('tsx/esm/api');
register();
await import('../mcp/diary/main.ts');
