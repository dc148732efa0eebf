import type { CallToolResult } from '@modelcontextprotocol/server';
import { asDomainError, DomainError } from '../../../domain/errors.ts';
import { noted } from '../audit.ts';

/** A JSON result: the same shapes the HTTP API answers with (the use cases return them). */
export const jsonResult = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
});

export const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * Runs a tool body. Domain refusals (forbidden, not found, invalid, too large, out of
 * space…) come back as `isError` results with the domain's own sentence and code, so the
 * model can read why; anything else is an internal error, logged without the arguments
 * (audit.ts logs it from the note: each refusal carries its code and sentence for the log).
 */
export async function guard(name: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (thrown) {
    const err = asDomainError(thrown);
    if (err instanceof DomainError) return noted(errorResult(`${err.code}: ${err.message}`), { code: err.code, reason: err.message });
    const e = err as { message?: string };
    return noted(errorResult(`internal: ${name} failed unexpectedly; nothing was reported as done`), { code: 'internal', reason: e.message ?? String(err) });
  }
}
