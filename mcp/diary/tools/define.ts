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
  /** `server` is the one serving this call (the writing tools ask it what the client can answer). */
  run(args: z.output<S>, ctx: ServerContext, server: McpServer): Promise<ToolReturn>;
};

/** The annotations of the ten tools that only read. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

type JsonOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

/** A tool ready to be added to any number of servers. */
export type DiaryTool = { readonly name: string; register(server: McpServer): void };

/**
 * The schema as the SDK is given it. Its JSON Schema is converted once and kept: the SDK
 * converts on every `tools/list`, and zod's conversion of the fourteen schemas was most of
 * the time (and the garbage) of answering one.
 */
function listed(schema: z.ZodType): StandardSchemaWithJSON<Record<string, unknown>> {
  const std = schema['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const convert = (io: 'input' | 'output') => (options: JsonOptions) => {
    if (options.libraryOptions) return std.jsonSchema[io](options);
    const key = `${io}\0${options.target}`;
    let json = converted.get(key);
    if (!json) converted.set(key, (json = std.jsonSchema[io](options)));
    return json;
  };
  return {
    '~standard': {
      version: 1,
      vendor: std.vendor,
      jsonSchema: { input: convert('input'), output: convert('output') },
      validate: (value) => ({ value: value as Record<string, unknown> }),
    },
  };
}

/**
 * A tool whose arguments are parsed with its schema before the handler runs. It is built
 * once per process and added to the server of every session and request: building the
 * schemas and handlers per server cost about 130 KB a server, and a 2025-era session keeps
 * its server for as long as the session lives.
 */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): DiaryTool {
  const config = { title: spec.title, description: spec.description, inputSchema: listed(spec.input), annotations: spec.annotations };
  return {
    name: spec.name,
    register: (server) =>
      void server.registerTool(spec.name, config, (raw, ctx) => guard(spec.name, () => spec.run(parseToolArgs(spec.input, raw), ctx, server))),
  };
}
