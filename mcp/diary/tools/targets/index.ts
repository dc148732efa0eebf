/** The five training-target tools: create, list, get, update (full replace) and delete (confirmed). */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Deps } from '../deps.ts';
import { registerCreateTarget } from './create.ts';
import { registerDeleteTarget } from './delete.ts';
import { registerGetTarget } from './get.ts';
import { registerListTargets } from './list.ts';
import { registerUpdateTarget } from './update.ts';

/** Registers the target tools, in the order hosts list them. */
export function registerTargetTools(server: McpServer, deps: Deps): void {
  registerCreateTarget(server, deps);
  registerListTargets(server, deps);
  registerGetTarget(server, deps);
  registerUpdateTarget(server, deps);
  registerDeleteTarget(server, deps);
}
