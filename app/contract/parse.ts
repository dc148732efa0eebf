import { z } from 'zod';
import { ValidationError } from '../../domain/errors.ts';

/**
 * What is being parsed, for the error sentence: `name` is used when the whole value is
 * wrong ("the body must be a JSON object"); `prefix` is put before field paths
 * ("meta.title must be a string").
 */
export type Subject = { readonly name: string; readonly prefix?: string };

export const BODY: Subject = { name: 'the body' };
export const QUERY: Subject = { name: 'the query' };

const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a JSON object',
  null: 'null',
};

function fieldName(path: readonly PropertyKey[], subject: Subject): string {
  let out = subject.prefix ?? '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? subject.name : out;
}

const list = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/** One human sentence naming the field, for an issue whose schema has no message of its own. */
function sentence(issue: z.core.$ZodRawIssue, subject: Subject): string {
  const field = fieldName(issue.path ?? [], subject);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `${field} is required`;
      return `${field} must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `${field} must be ${JSON.stringify(issue.values[0])}` : `${field} must be one of ${list(issue.values)}`;
    case 'too_big':
      if (issue.origin === 'string') return `${field} is longer than ${issue.maximum} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${field} has more than ${issue.maximum} items`;
      return `${field} must be at most ${issue.maximum}`;
    case 'too_small':
      if ((issue.origin === 'string' || issue.origin === 'array') && Number(issue.minimum) === 1) return `${field} must not be empty`;
      if (issue.origin === 'string') return `${field} is shorter than ${issue.minimum} characters`;
      if (issue.origin === 'array') return `${field} has fewer than ${issue.minimum} items`;
      return `${field} must be at least ${issue.minimum}`;
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue ? `${field} must match ${String(issue.pattern)}` : `${field} is not a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `unknown field ${list(issue.keys.map((k) => JSON.stringify(k)))}${issue.path?.length || subject.prefix ? ` in ${field}` : ''}`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${issue.divisor}`;
    default:
      return `${field} is not valid`;
  }
}

/**
 * Validates request input with its schema: the value on success, else a `ValidationError`
 * (400 `invalid`) whose message is one sentence naming the first offending field.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, subject: Subject = BODY): z.output<S> {
  const result = schema.safeParse(value, { error: (issue) => sentence(issue, subject) });
  if (result.success) return result.data;
  throw new ValidationError(result.error.issues[0]?.message ?? `${subject.name} is not valid`);
}

/**
 * A `meta` value as it comes (the text of a multipart part, or already an object, as in a
 * deploy body or an MCP call), checked with its schema; errors name `meta.…`.
 */
export function parseMeta<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  let raw = value;
  if (typeof value === 'string') {
    try {
      raw = JSON.parse(value);
    } catch {
      throw new ValidationError('meta is not valid JSON');
    }
  }
  return parseInput(schema, raw, { name: 'meta', prefix: 'meta' });
}

/**
 * A koa query as one string per parameter: a parameter given twice is refused, an empty one
 * counts as absent (`?limit=` means the default), as the API always did.
 */
export function singleValues(query: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value) && value.length > 1) throw new ValidationError(`${name} was given more than once`);
    const one = Array.isArray(value) ? value[0] : value;
    if (one !== undefined && one !== '') out[name] = one;
  }
  return out;
}

/** Validates a query string with its schema (see `singleValues`). */
export function parseQuery<S extends z.ZodType>(schema: S, query: Readonly<Record<string, string | string[] | undefined>>): z.output<S> {
  return parseInput(schema, singleValues(query), QUERY);
}
