/**
 * A tool's zod schema applied to raw arguments, its first issue worded as the
 * contract wants it: `<path>: <advice>`, the path written like `phases[1].goal`
 * (spec §4). One issue only: the contract's messages name one argument.
 */
import type * as z from 'zod';

/** A rejected argument; the message starts with the argument path and a colon (or is a whole-call rule such as VOLUME). */
export class ArgError extends Error {}

/** An issue raised inside an object-level check or transform, at a path below that object. */
export function reject(ctx: z.core.ParsePayload<unknown>, path: PropertyKey[], advice: string): void {
  ctx.issues.push({ code: 'custom', input: ctx.value, path, message: advice });
}

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '');
}

/** The contract's wording of one issue: `<path>: <advice>`, or the bare advice for a whole-call rule. */
export function issueText(issue: z.core.$ZodIssue): string {
  const path = pathText(issue.path);
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Parses raw arguments with a tool's schema; the first failure, in argument order, is thrown as an ArgError. */
export function parseArgs<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const r = schema.safeParse(raw);
  if (!r.success) throw new ArgError(issueText(r.error.issues[0]));
  return r.data;
}

/**
 * Issues about what the listed JSON Schema itself says (a type, a required argument, an
 * enum) reach an MCP client worded as the SDK's own schema validation words them,
 * starting `Input validation error:` (spec §4), then naming the argument.
 */
const SCHEMA_LEVEL = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

/** parseArgs for a tool call: schema-level failures carry the SDK's prefix. */
export function parseToolArgs<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new ArgError(SCHEMA_LEVEL.has(issue.code) ? `Input validation error: ${issueText(issue)}` : issueText(issue));
}
