/** The account tools: `get_user_info` and `list_sports`. */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Deps } from '../deps.ts';
import { registerListSports } from './sports.ts';
import { registerUserInfo } from './user.ts';

/** Registers the account tools, in the order hosts list them. */
export function registerAccountTools(server: McpServer, deps: Deps): void {
  registerUserInfo(server, deps);
  registerListSports(server, deps);
}
