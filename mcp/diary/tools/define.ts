/**
 * How a tool is declared. Each tool has one zod schema, and it is at once the
 * JSON Schema `tools/list` shows, the validation, and the source of every
 * argument message; the handler receives its parsed, typed output.
 *
 * The SDK would validate the schema itself, but it reports every issue at once and
 * in its own words, while the contract wants one `<arg>: <advice>` (behind the SDK's
 * `Input validation error:` prefix for type, required and enum mismatches, spec §4).
 * So the SDK is handed the same schema with
 * its JSON Schema intact and a validation that lets the arguments through, and
 * the wrapper below parses them with the schema instead, inside the guard that
 * turns failures into error results.
 */
import type { McpServer, ServerContext, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { parseToolArgs } from './args/parse.ts';
import { guard, type ToolReturn } from './result.ts';

/** One tool: metadata, its schema, and a handler over the schema's output. */
export type ToolSpec<S extends z.ZodType> = {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  input: S;
  run(args: z.output<S>, ctx: ServerContext): Promise<ToolReturn>;
};

/** The annotations of the ten tools that only read. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

function listed(schema: z.ZodType): StandardSchemaWithJSON<Record<string, unknown>> {
  const std = schema['~standard'];
  return {
    '~standard': { version: 1, vendor: std.vendor, jsonSchema: std.jsonSchema, validate: (value) => ({ value: value as Record<string, unknown> }) },
  };
}

/** Registers a tool whose arguments are parsed with its schema before the handler runs. */
export function defineTool<S extends z.ZodType>(server: McpServer, spec: ToolSpec<S>): void {
  server.registerTool(
    spec.name,
    { title: spec.title, description: spec.description, inputSchema: listed(spec.input), annotations: spec.annotations },
    (raw, ctx) => guard(spec.name, () => spec.run(parseToolArgs(spec.input, raw), ctx)),
  );
}
