/** The five training-target tools: create, list, get, update (full replace) and delete (confirmed). */
import * as z from 'zod';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import {
  exerciseTargetId,
  parseCreatedId,
  parseValidationBody,
  targetEventLine,
  targetEvents,
  targetToWire,
  toDottedDate,
  type TargetInput,
} from '../convert.ts';
import { confirmGate } from '../confirm.ts';
import { excerpt, httpError, UpstreamError } from '../upstream/errors.ts';
import type { Reply } from '../upstream/session.ts';
import { dateRange, positiveInt, targetArgs, type Args } from '../validate.ts';
import { READ_ONLY } from './account.ts';
import { today, type Deps } from './deps.ts';
import { guard, jsonResult, parseBody, textResult, ToolFailure } from './result.ts';
import { int, optDate, optInt, optStr, phase, str } from './schema.ts';

const notFound = (id: number) => textResult(`No target with id ${id}.`);

const PHASE_GUIDE =
  'Modelling: a VOLUME target (no phases) needs exactly one of duration_s or distance_m. With phases it is PHASED: ' +
  'warmup/cooldown are single duration-goaled blocks (duration_s seconds, optional intensity and name); ' +
  'repeat needs reps >= 2 and a goal with exactly one of distance_m (metres) or duration_s (seconds), optional intensity for the work part and optional recovery {duration_s}. ' +
  'A single continuous zoned effort with a duration goal is one warmup or cooldown phase with intensity and a custom name; ' +
  'a single continuous distance-goaled effort needs a repeat (e.g. 2 x 2500 m for 5 km); an unzoned unstructured effort is a VOLUME target. ' +
  'Intensity: at most one of hr_zone, power_zone, speed_zone (zone indices 1-5, not watts or speeds) or label (easy, aerobic, tempo, threshold, vo2max); power_zone needs a power-capable sport such as cycling (sport_id 2).';

const EXAMPLE =
  'Example: {"name": "Track 6x400", "date": "2026-03-12", "time": "18:00", "sport_id": 1, "phases": [' +
  '{"type": "warmup", "duration_s": 600, "intensity": {"hr_zone": 2}}, ' +
  '{"type": "repeat", "reps": 6, "goal": {"distance_m": 400}, "intensity": {"speed_zone": 5}, "recovery": {"duration_s": 90}}, ' +
  '{"type": "cooldown", "duration_s": 600}]}; a VOLUME example: {"name": "Easy run", "date": "2026-03-14", "duration_s": 2700}.';

const targetFields = {
  name: str('Display name, at most 45 characters'),
  date: str('Day, YYYY-MM-DD; the diary applies the account time zone'),
  time: optStr('Local start time HH:MM (24-hour); default 18:00'),
  sport_id: optInt('Sport id from list_sports; default 1 (running)'),
  description: optStr('Free text, at most 500 characters'),
  duration_s: optInt('VOLUME total duration in seconds; ignored when phases are given'),
  distance_m: optInt('VOLUME total distance in metres; ignored when phases are given'),
  phases: z.array(phase).describe('Ordered phases of a PHASED target; omit or [] for a VOLUME target').nullish(),
};

/** Turns a refused create/update into the contract's messages. */
function rejection(action: string, r: Reply, t: TargetInput): never {
  if (r.status !== 400) throw httpError(action, r.status, r.text);
  const fields = parseValidationBody(r.text);
  if (!fields) throw httpError(action, r.status, r.text);
  const at = `${t.date}T${t.time}`;
  if ((fields.time ?? []).some((c) => c.includes('twoTargetsForSameTime'))) {
    throw new ToolFailure(`The diary already has a training target at ${at}; pick another date or time.`);
  }
  if (fields['trainingSessionTarget.name']) {
    throw new ToolFailure(
      `The diary refused the name (trainingSessionTarget.name: ${fields['trainingSessionTarget.name'].join(', ')}). ` +
        `Its content filter rejects some harmless text: reword the name or prefix it, e.g. "Session - ${t.name}", and try again.`,
    );
  }
  const pairs = Object.keys(fields)
    .sort()
    .map((k) => `${k}: ${fields[k].join(', ')}`);
  throw new ToolFailure(`Upstream validation failed: ${pairs.join('; ')}`);
}

type Read = { found: true; body: Record<string, unknown> } | { found: false };

/** Reads a target: 404 is "not found" (a normal result), 403 a foreign target. */
async function readTarget(deps: Deps, id: number): Promise<Read> {
  const action = 'reading the training target';
  const r = await deps.upstream.call({ action, method: 'GET', path: `/api/trainingtarget/${id}` });
  if (r.status === 404) return { found: false };
  if (r.status === 403) throw new ToolFailure(`Training target ${id} belongs to another account; nothing was read or changed.`);
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return { found: true, body: parseBody(action, r.text) as Record<string, unknown> };
}

function deletePrompt(id: number, body: Record<string, unknown>): string {
  const name = typeof body.name === 'string' && body.name.trim() !== '' ? body.name : undefined;
  return name
    ? `Permanently remove training target ${JSON.stringify(name)} (${String(body.datetime)}, id ${id}) from the diary? This cannot be undone.`
    : `Permanently remove training target ${id} from the diary? This cannot be undone.`;
}

/** Registers the target tools. */
export function registerTargetTools(server: McpServer, deps: Deps): void {
  server.registerTool(
    'create_training_target',
    {
      title: 'Plan a workout',
      description:
        'Creates a training target (a planned workout) in the diary and returns its numeric id. Units: durations in seconds (*_s), distances in metres (*_m). ' +
        `The date-time is sent as local wall clock; the diary applies the account's time zone. ${PHASE_GUIDE} ${EXAMPLE}`,
      inputSchema: z.object(targetFields),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      guard('create_training_target', async () => {
        const t = targetArgs(args as Args);
        const action = 'creating the training target';
        const r = await deps.upstream.call({ action, method: 'POST', path: '/api/trainingtarget', body: targetToWire(t) });
        if (r.status !== 201 && r.status !== 200) rejection(action, r, t);
        const id = parseCreatedId(r.text);
        if (id === undefined) throw new UpstreamError(`${action} failed: unexpected create response: ${excerpt(r.text) || '(empty body)'}`);
        return textResult(`Created training target ${id}: ${JSON.stringify(t.name)} at ${t.date}T${t.time}.`);
      }),
  );

  server.registerTool(
    'list_training_targets',
    {
      title: 'List planned workouts',
      description:
        'Lists training targets between two dates (inclusive), one line per target: "<id>: <title> (<start>)". Defaults: from_date today (UTC), to_date today + 30 days.',
      inputSchema: z.object({ from_date: optDate('First day; default today'), to_date: optDate('Last day; default today + 30 days') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('list_training_targets', async () => {
        const { from, to } = dateRange(args as Args, today(deps), 0, 30);
        const events = await calendarEvents(deps, from, to);
        const lines = targetEvents(events).map(targetEventLine);
        return textResult(lines.length ? lines.join('\n') : `No training targets between ${from} and ${to}.`);
      }),
  );

  server.registerTool(
    'get_training_target',
    {
      title: 'Read a planned workout',
      description:
        "Returns a training target exactly as the diary stores it (server-normalised: ids, rolled-up totals, HH:MM:SS durations, zones). Read it before update_training_target, which is a full replace.",
      inputSchema: z.object({ target_id: int('Training target id') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('get_training_target', async () => {
        const id = positiveInt((args as Args).target_id, 'target_id', true);
        const read = await readTarget(deps, id);
        return read.found ? jsonResult(read.body) : notFound(id);
      }),
  );

  server.registerTool(
    'update_training_target',
    {
      title: 'Replace a planned workout',
      description:
        'Replaces a training target completely: this is a full replace, not a patch. Every argument left out is cleared or reset to its default (time 18:00, sport_id 1, no description, no phases = VOLUME), so read the target with get_training_target first and pass everything you want to keep. ' +
        `The tool carries over the live exercise-target id itself. Returns the target as read back after the edit. Units and phases as in create_training_target. ${PHASE_GUIDE}`,
      inputSchema: z.object({ target_id: int('Training target id'), ...targetFields }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args) =>
      guard('update_training_target', async () => {
        const a = args as Args;
        const id = positiveInt(a.target_id, 'target_id', true);
        const t = targetArgs(a);
        const live = await readTarget(deps, id);
        if (!live.found) return notFound(id);
        const action = 'updating the training target';
        const body = targetToWire(t, exerciseTargetId(live.body));
        const r = await deps.upstream.call({ action, method: 'POST', path: `/api/trainingtarget/${id}`, body });
        if (r.status === 404) return notFound(id);
        if (r.status === 403) throw new ToolFailure(`Training target ${id} belongs to another account; nothing was changed.`);
        if (r.status < 200 || r.status >= 300) rejection(action, r, t);
        try {
          const after = await readTarget(deps, id);
          if (!after.found) return textResult(`Updated target ${id}, but reading it back failed: it is no longer there`);
          return jsonResult(after.body);
        } catch (err) {
          return textResult(`Updated target ${id}, but reading it back failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
  );

  server.registerTool(
    'delete_training_target',
    {
      title: 'Delete a planned workout',
      description:
        'Permanently deletes a training target; this is irreversible. Asks the user to confirm first where the host supports it (the prompt names the target). Returns "Deleted target <id>." or "No target with id <id>.".',
      inputSchema: z.object({ target_id: int('Training target id') }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args, ctx: ServerContext) =>
      guard('delete_training_target', async () => {
        const id = positiveInt((args as Args).target_id, 'target_id', true);
        // Always read first: upstream's DELETE does not reliably say whether the id existed.
        const read = await readTarget(deps, id);
        if (!read.found) return notFound(id);
        const gate = confirmGate(server, ctx, deletePrompt(id, read.body));
        if (gate) return gate;
        const action = 'deleting the training target';
        const r = await deps.upstream.call({ action, method: 'DELETE', path: `/training/target/${id}` });
        if (r.status === 200 || r.status === 204) return textResult(`Deleted target ${id}.`);
        if (r.status === 400 || r.status === 404) return notFound(id);
        throw httpError(action, r.status, r.text);
      }),
  );
}

/** Calendar events for an inclusive range, dates sent as D.M.YYYY. */
export async function calendarEvents(deps: Deps, from: string, to: string): Promise<unknown> {
  const action = 'listing calendar events';
  const q = `start=${toDottedDate(from)}&end=${toDottedDate(to)}`;
  const r = await deps.upstream.call({ action, method: 'GET', path: `/training/getCalendarEvents?${q}` });
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return parseBody(action, r.text);
}
