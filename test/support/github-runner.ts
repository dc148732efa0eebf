import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseYaml, type Yaml } from './mini-yaml.ts';

/**
 * Runs one job of a GitHub Actions workflow from deploy/ the way the runner would, as far as
 * a test can: each `run` step with `bash --noprofile --norc -eo pipefail` (what `shell: bash`
 * runs) in the job's workspace, with the workflow's, job's and step's `env` after evaluating
 * their `${{ a.b.c }}` expressions (plain property paths only; anything else fails the test),
 * plus RUNNER_TEMP, GITHUB_OUTPUT (read back as the step's outputs), GITHUB_STEP_SUMMARY,
 * GITHUB_API_URL, GITHUB_REPOSITORY and GITHUB_EVENT_PATH. A step's `if:` may only be a path
 * (`steps.pr.outputs.number`), true when it is not empty.
 *
 * `uses:` steps: this repository's action (`OWNER/sites@…`) runs action.yml's own bash with
 * its `with:` as inputs (defaults for the rest, as on GitHub); upload-artifact and
 * download-artifact copy folders through `artifacts`; checkout and the step named `Build`
 * (the user's own build) are left out: the test puts the built folder in the workspace.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
type Map = { [key: string]: Yaml };

export type Context = {
  readonly github: { readonly event_name: string; readonly event: unknown; readonly token: string; readonly repository: string };
  readonly vars: Record<string, string>;
  readonly secrets: Record<string, string>;
};

export type StepRun = { readonly name: string; readonly code: number; readonly stdout: string; readonly stderr: string; readonly skipped?: boolean };

export type JobRun = {
  readonly steps: StepRun[];
  /** The first failed step's exit status, else 0 (later steps do not run, as on GitHub). */
  readonly code: number;
  readonly summary: string;
  readonly outputs: Record<string, Record<string, string>>;
};

export type Runner = {
  /** Where the job's runner keeps its files: RUNNER_TEMP and the workspace are under it. */
  readonly dir: string;
  readonly apiUrl: string;
  /** Artifacts by name: the folder an upload-artifact step stored. */
  readonly artifacts: Map2;
};
type Map2 = { [name: string]: string };

export async function loadWorkflow(file: string): Promise<Map> {
  return parseYaml(await readFile(join(ROOT, 'deploy', file), 'utf8')) as Map;
}

function lookup(path: string, scope: Record<string, unknown>): string {
  let value: unknown = scope;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return '';
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') throw new Error(`expression ${path} is not a scalar`);
  return String(value);
}

/** `${{ a.b.c }}` replaced from `scope`; any other expression fails the test. */
export function evaluate(text: string, scope: Record<string, unknown>): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => {
    const path = expr.trim();
    if (!/^[A-Za-z_][\w-]*(\.[\w-]+)*$/.test(path)) throw new Error(`unsupported expression: ${expr}`);
    return lookup(path, scope);
  });
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

function outputsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** Runs `jobs.<job>` of `workflow` in `runner.dir`, with the event in `ctx.github.event`. */
export async function runJob(workflow: Map, job: string, ctx: Context, runner: Runner): Promise<JobRun> {
  const spec = (workflow.jobs as Map)[job] as Map;
  const temp = join(runner.dir, 'temp');
  const workspace = join(runner.dir, 'workspace');
  await mkdir(temp, { recursive: true });
  await mkdir(workspace, { recursive: true });
  const eventPath = join(temp, 'event.json');
  await writeFile(eventPath, JSON.stringify(ctx.github.event));
  const summaryFile = join(temp, 'step-summary.md');
  await writeFile(summaryFile, '');
  const outputs: Record<string, Record<string, string>> = {};
  const runnerEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: runner.dir,
    LANG: 'C.UTF-8',
    RUNNER_TEMP: temp,
    GITHUB_WORKSPACE: workspace,
    GITHUB_API_URL: runner.apiUrl,
    GITHUB_REPOSITORY: ctx.github.repository,
    GITHUB_EVENT_NAME: ctx.github.event_name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_ACTIONS: 'true',
  };
  const scope = (env: Record<string, string>) => ({ ...ctx, runner: { temp }, env, steps: Object.fromEntries(Object.entries(outputs).map(([id, o]) => [id, { outputs: o }])) });
  let env: Record<string, string> = {};
  for (const level of [workflow.env, spec.env]) {
    for (const [name, value] of Object.entries((level as Map | undefined) ?? {})) env = { ...env, [name]: evaluate(String(value), scope(env)) };
  }

  const steps: StepRun[] = [];
  for (const [i, raw] of ((spec.steps as Map[]) ?? []).entries()) {
    const step = raw as Map;
    const name = String(step.name ?? step.uses ?? `step ${i + 1}`);
    if (step.if !== undefined && !evaluate(`\${{ ${String(step.if)} }}`, scope(env))) {
      steps.push({ name, code: 0, stdout: '', stderr: '', skipped: true });
      continue;
    }
    let stepEnv = { ...env };
    for (const [k, v] of Object.entries((step.env as Map | undefined) ?? {})) stepEnv = { ...stepEnv, [k]: evaluate(String(v), scope(env)) };
    const withs: Record<string, string> = {};
    for (const [k, v] of Object.entries((step.with as Map | undefined) ?? {})) withs[k] = evaluate(String(v), scope(env));
    const outputFile = join(temp, `output-${i}`);
    await writeFile(outputFile, '');
    let result: { code: number; stdout: string; stderr: string };
    const uses = step.uses === undefined ? undefined : String(step.uses);
    if (uses?.startsWith('actions/checkout@') || name === 'Build') {
      steps.push({ name, code: 0, stdout: '', stderr: '', skipped: true });
      continue;
    } else if (uses?.startsWith('actions/upload-artifact@')) {
      runner.artifacts[withs.name!] = withs.path!;
      result = { code: 0, stdout: '', stderr: '' };
    } else if (uses?.startsWith('actions/download-artifact@')) {
      const from = runner.artifacts[withs.name!];
      if (!from) throw new Error(`no artifact ${withs.name}`);
      await cp(from, withs.path!, { recursive: true });
      result = { code: 0, stdout: '', stderr: '' };
    } else if (uses && /\/sites@/.test(uses)) {
      result = await runAction(withs, { ...runnerEnv, ...stepEnv, GITHUB_OUTPUT: outputFile }, workspace);
    } else if (step.run !== undefined) {
      result = await bash(evaluate(String(step.run), scope(env)), workspace, { ...runnerEnv, ...stepEnv, GITHUB_OUTPUT: outputFile });
    } else {
      throw new Error(`step ${name}: not something this runner knows`);
    }
    if (step.id !== undefined) outputs[String(step.id)] = outputsOf(await readFile(outputFile, 'utf8'));
    steps.push({ name, ...result });
    if (result.code !== 0) return { steps, code: result.code, summary: await readFile(summaryFile, 'utf8'), outputs };
  }
  return { steps, code: 0, summary: await readFile(summaryFile, 'utf8'), outputs };
}

/** action.yml's one bash step with these inputs (an input not given takes its default). */
export async function runAction(inputs: Record<string, string>, env: Record<string, string>, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const action = parseYaml(await readFile(join(ROOT, 'action.yml'), 'utf8')) as Map;
  const declared = action.inputs as Map;
  for (const name of Object.keys(inputs)) if (!(name in declared)) throw new Error(`action.yml has no input ${name}`);
  const [step] = (action.runs as Map).steps as Map[];
  const stepEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(step!.env as Map)) {
    stepEnv[name] = String(value).replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, input: string) => inputs[input] ?? String((declared[input] as Map).default ?? ''));
  }
  return bash(String(step!.run), cwd, { ...env, ...stepEnv });
}
