/**
 * The confirmation gate shared by the two writing tools. One handler serves both
 * protocol eras: on 2026-07-28 the returned input-required result goes to the
 * client and the retry carries the answer; on 2025-era connections the SDK's
 * legacy shim turns it into a real `elicitation/create` and re-enters the handler.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { textResult, type ToolReturn } from './tools/result.ts';

/** The exact text of a declined or cancelled confirmation (a normal result). */
export const DECLINED =
  'Not confirmed by the user, so nothing was written to the diary. Only try again if the user asks for it.';

const CONFIRM = 'confirm';
const EMPTY_FORM = { type: 'object' as const, properties: {} };

/** The answer carried by a retried call, if any. */
export function confirmation(ctx: ServerContext): 'accept' | 'decline' | undefined {
  const a = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
  if (a.kind !== 'elicit') return undefined;
  return a.action === 'accept' ? 'accept' : 'decline';
}

/**
 * Whether the client can answer a form elicitation: modern requests declare
 * capabilities in their own envelope, legacy connections in `initialize`.
 * Without the check the SDK would fail the call instead of running it.
 */
export function canAskForm(server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.server.getClientCapabilities()) as
    | { elicitation?: unknown }
    | undefined;
  const e = caps?.elicitation;
  return typeof e === 'object' && e !== null && (Object.keys(e).length === 0 || 'form' in e);
}

/**
 * Decides whether a writing tool may proceed: undefined means go ahead;
 * otherwise the returned value (a confirmation request or the decline text)
 * is the tool's answer for this leg.
 */
export function confirmGate(server: McpServer, ctx: ServerContext, prompt: string): ToolReturn | undefined {
  const answer = confirmation(ctx);
  if (answer === 'accept') return undefined;
  if (answer === 'decline') return textResult(DECLINED);
  if (!canAskForm(server, ctx)) return undefined;
  return inputRequired({
    inputRequests: { [CONFIRM]: inputRequired.elicit({ message: prompt, requestedSchema: EMPTY_FORM }) },
  });
}
