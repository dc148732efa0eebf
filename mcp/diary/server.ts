/**
 * The server factory: a fresh McpServer with the fourteen tools per serving
 * unit (a stdio connection or an HTTP request), all sharing one upstream client.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { registerAccountTools } from './tools/account/index.ts';
import { registerCalendarTools } from './tools/calendar/index.ts';
import { registerSessionTools } from './tools/sessions/index.ts';
import { registerTargetTools } from './tools/targets/index.ts';
import type { Deps } from './tools/deps.ts';

/** Server name and version announced to clients. */
export const SERVER_INFO = { name: 'training-diary', version: '0.1.0' };

/** Builds one server instance over the shared dependencies. */
export function createDiaryServer(deps: Deps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'Tools for one training-diary account. Units: seconds (*_s), metres (*_m), km/h (*_kmh), bpm, ISO 8601 dates. Two tools write after asking the user: create_training_session and delete_training_target.',
  });
  registerAccountTools(server, deps);
  registerSessionTools(server, deps);
  registerTargetTools(server, deps);
  registerCalendarTools(server, deps);
  return server;
}
