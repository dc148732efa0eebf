import type { CallToolResult, McpServer, ToolAnnotations } from '@modelcontextprotocol/server';
import type { ApiContext } from '../../api/context.ts';
import { STATUS } from '../../api/errors.ts';
import type { AuditEntry } from '../../api/audit-entry.ts';
import { actorFields, type WriteNote } from '../../api/write-log.ts';
import type { Identity } from '../../domain/auth.ts';
import type { ErrorCode } from '../../domain/errors.ts';

/** What a tool tells the log about its call: the revision it made live, or why it failed. */
export type ToolNote = WriteNote & { unchanged?: boolean; code?: string; reason?: string };

const NOTE = Symbol('tool note');

/** Attaches a note to a tool result for the write log; never sent (a symbol key is not serialized). */
export function noted(result: CallToolResult, note: ToolNote): CallToolResult {
  const previous = (result as { [NOTE]?: ToolNote })[NOTE];
  Object.defineProperty(result, NOTE, { value: { ...previous, ...note }, configurable: true });
  return result;
}

type AnyTool = (args: unknown, ctx: unknown) => Promise<CallToolResult>;
type Register = (name: string, config: { annotations?: ToolAnnotations }, handler: AnyTool) => unknown;

/**
 * The one place MCP tool calls are logged: every call of a tool that is not read-only
 * writes one line (actor: the connection; action `mcp.<tool>`; site; revision; outcome),
 * as the HTTP edge does for writes (api/write-log.ts), and any tool's internal failure is
 * logged with its cause (the client only reads "internal"). Installed on each request's
 * server before the tools are registered.
 */
export function logToolCalls(server: McpServer, api: Pick<ApiContext, 'hooks'>, identity: Identity, client: string): void {
  const register = server.registerTool.bind(server) as unknown as Register;
  const audited: Register = (name, config, handler) =>
    register(name, config, async (args, ctx) => {
      const started = Date.now();
      let result: CallToolResult | undefined;
      try {
        result = await handler(args, ctx);
        return result;
      } finally {
        const note: ToolNote = (result as { [NOTE]?: ToolNote } | undefined)?.[NOTE] ?? {};
        const code = result === undefined ? 'internal' : result.isError ? (note.code ?? 'internal') : undefined;
        if (code === 'internal') api.hooks.log.error(`mcp: tool ${name} failed`, { error: note.reason ?? 'the tool threw' });
        if (!config.annotations?.readOnlyHint) api.hooks.audit(toolEntry(name, identity, client, args, note, code, Date.now() - started));
      }
    });
  (server as unknown as { registerTool: Register }).registerTool = audited;
}

function toolEntry(name: string, identity: Identity, client: string, args: unknown, note: ToolNote, code: string | undefined, ms: number): AuditEntry {
  const status = code === undefined ? 200 : (STATUS[code as ErrorCode] ?? 500);
  const site = note.site ?? siteOf(args);
  return {
    kind: 'write',
    ...actorFields(identity.actor),
    action: `mcp.${name}`,
    ...(site ? { site } : {}),
    ...(note.revision ? { revision: note.revision } : {}),
    ...(note.unchanged ? { unchanged: true as const } : {}),
    ...(note.target ? { target: note.target } : {}),
    outcome: status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'ok',
    status,
    ...(code ? { code } : {}),
    // An internal failure's cause is in its own error line.
    ...(note.reason && code !== 'internal' ? { reason: note.reason } : {}),
    method: 'MCP',
    route: '/mcp',
    client,
    ms,
  };
}

/** The site a tool's arguments name: `site`, or `group` and `slug`. */
function siteOf(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const a = args as { site?: unknown; group?: unknown; slug?: unknown };
  if (typeof a.site === 'string' && a.site) return a.site;
  if (typeof a.slug === 'string' && a.slug) return typeof a.group === 'string' && a.group ? `${a.group}/${a.slug}` : a.slug;
  return undefined;
}
