/**
 * Result helpers and the guard every tool runs in: argument and upstream
 * failures become `isError` results, and each call is logged to stderr with its
 * duration and outcome (never its arguments).
 */
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { ArgError } from './args/parse.ts';
import { UpstreamError } from '../upstream/errors.ts';

/** What a tool handler may return. */
export type ToolReturn = CallToolResult | InputRequiredResult;

/** A plain text result. */
export const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** A JSON result, indented with two spaces. */
export const jsonResult = (value: unknown): CallToolResult => textResult(JSON.stringify(value, null, 2));

/** A tool error result. */
export const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** A failure that is already worded for the user (local decisions such as a 403 or a refused create). */
export class ToolFailure extends Error {}

/** Parses an upstream 200 body; a non-JSON body is a failure of `action`. */
export function parseBody(action: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError(`${action} failed: the diary answered with something that is not JSON`);
  }
}

function outcome(r: ToolReturn): string {
  if ('resultType' in r && r.resultType === 'input_required') return 'input_required';
  return (r as CallToolResult).isError ? 'error' : 'ok';
}

/** Runs a handler, mapping known failures to error results and logging name, duration and outcome. */
export async function guard(name: string, run: () => Promise<ToolReturn>): Promise<ToolReturn> {
  const started = performance.now();
  let result: ToolReturn;
  try {
    result = await run();
  } catch (err) {
    if (err instanceof ArgError || err instanceof UpstreamError || err instanceof ToolFailure) result = errorResult(err.message);
    else result = errorResult(`Internal error in ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const ms = Math.round(performance.now() - started);
  process.stderr.write(`diary: tool=${name} ms=${ms} outcome=${outcome(result)}\n`);
  return result;
}
