/** The four session tools: log (confirmed), list, summary, details. */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Deps } from '../deps.ts';
import { registerSessionDetails, registerSessionSummary } from './analysis.ts';
import { registerCreateSession } from './create.ts';
import { registerListSessions } from './list.ts';

/** Registers the session tools, in the order hosts list them. */
export function registerSessionTools(server: McpServer, deps: Deps): void {
  registerCreateSession(server, deps);
  registerListSessions(server, deps);
  registerSessionSummary(server, deps);
  registerSessionDetails(server, deps);
}
