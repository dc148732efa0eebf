import type { CallToolResult } from '@modelcontextprotocol/server';
import { DomainError } from '../../../domain/errors.ts';
import { noted } from '../audit.ts';

/** A JSON result: the same shapes the HTTP API answers with. */
export const jsonResult = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
});

export const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * Runs a tool body. Domain refusals (forbidden, not found, invalid, too large…) come back
 * as `isError` results with the domain's own sentence and code, so the model can read why;
 * anything else is an internal error, logged without the arguments (audit.ts logs it from
 * the note: each refusal carries its code and sentence for the log).
 */
export async function guard(name: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError) return noted(errorResult(`${err.code}: ${err.message}`), { code: err.code, reason: err.message });
    const e = err as { code?: string; message?: string };
    if (e.code === 'ENOSPC' || e.code === 'EDQUOT') {
      return noted(errorResult('insufficient_storage: the file store is out of space; nothing was changed'), { code: 'insufficient_storage', reason: 'the file store is out of space' });
    }
    return noted(errorResult(`internal: ${name} failed unexpectedly; nothing was reported as done`), { code: 'internal', reason: e.message ?? String(err) });
  }
}
