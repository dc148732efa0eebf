/**
 * The server factory: a fresh McpServer with the fourteen tools per serving
 * unit (a stdio connection, a 2025-era session or a 2026 request), all sharing
 * one upstream client and one set of tool definitions.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { accountTools } from './tools/account/index.ts';
import { calendarTools } from './tools/calendar/index.ts';
import type { DiaryTool } from './tools/define.ts';
import type { Deps } from './tools/deps.ts';
import { sessionTools } from './tools/sessions/index.ts';
import { targetTools } from './tools/targets/index.ts';

/** Server name and version announced to clients. */
export const SERVER_INFO = { name: 'training-diary', version: '0.1.0' };

/**
 * The tools of each `deps`, built on its first server: their schemas and handlers hold
 * nothing of a session, and building them for every server made each 2025-era session
 * (kept until it expires or is evicted) cost about 130 KB more.
 */
const toolSets = new WeakMap<Deps, readonly DiaryTool[]>();

function toolsOf(deps: Deps): readonly DiaryTool[] {
  let tools = toolSets.get(deps);
  if (!tools) toolSets.set(deps, (tools = [...accountTools(deps), ...sessionTools(deps), ...targetTools(deps), ...calendarTools(deps)]));
  return tools;
}

/** Builds one server instance over the shared dependencies. */
export function createDiaryServer(deps: Deps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'Tools for one training-diary account. Units: seconds (*_s), metres (*_m), km/h (*_kmh), bpm, ISO 8601 dates. Two tools write after asking the user: create_training_session and delete_training_target.',
  });
  for (const tool of toolsOf(deps)) tool.register(server);
  return server;
}
