/**
 * Test wiring: MCP clients (pinned to one protocol era) connected to the diary
 * server over stdio (a spawned `node bin/diary.mjs`) or over
 * Streamable HTTP (the same HTTP stack started in-process), against the simulator.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { HTTP_DEFAULTS, startHttp, type HttpEndpoint, type HttpOptions } from '../../mcp/diary/http.ts';
import { createDiaryServer } from '../../mcp/diary/server.ts';
import { createUpstream } from '../../mcp/diary/upstream/client.ts';
import type { DiarySim } from '../support/diary-sim/server.ts';

/** The repository root (where package.json is). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The arguments to `node` that start the diary server over stdio: the launcher MCP hosts are
 * told to run (the compiled build). Loading the sources through tsx took 0.5 s more CPU a start.
 */
export const DIARY_ARGS = ['bin/diary.mjs'];

/** Protocol eras the tests pin a client to. */
export type Era = 'modern' | 'legacy';

/** How the test client answers a confirmation; `none` declares no elicitation capability. */
export type Answer = 'accept' | 'decline' | 'cancel' | 'none';

/** A connected client plus a record of the prompts it was shown. */
export type TestClient = { client: Client; prompts: string[]; answer: { value: Answer }; close(): Promise<void> };

/** The modern revision the client is pinned to. */
export const MODERN = '2026-07-28';

function makeClient(era: Era, answer: Answer): { client: Client; prompts: string[]; ref: { value: Answer } } {
  const ref = { value: answer };
  const prompts: string[] = [];
  const client = new Client(
    { name: 'diary-test', version: '1.0.0' },
    {
      capabilities: answer === 'none' ? {} : { elicitation: { form: {} } },
      versionNegotiation: era === 'modern' ? { mode: { pin: MODERN } } : { mode: 'legacy' },
    },
  );
  if (answer !== 'none') {
    client.setRequestHandler('elicitation/create', async (req) => {
      prompts.push(String((req.params as { message?: string }).message));
      const action = ref.value === 'none' ? 'cancel' : ref.value;
      return action === 'accept' ? { action, content: {} } : { action };
    });
  }
  return { client, prompts, ref };
}

/** Spawns the server over stdio with the simulator's env (plus overrides). */
export async function stdioClient(sim: DiarySim, era: Era, answer: Answer, env: Record<string, string> = {}): Promise<TestClient> {
  const { client, prompts, ref } = makeClient(era, answer);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: DIARY_ARGS,
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TZ: 'Europe/Stockholm', ...sim.env(), ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, prompts, answer: ref, close: () => client.close() };
}

/** Starts the HTTP server in-process against the simulator. */
export async function httpServer(sim: DiarySim, timeoutMs = 2000, opts: Partial<HttpOptions> = {}): Promise<HttpEndpoint> {
  const e = sim.env();
  const upstream = createUpstream({ baseUrl: e.DIARY_BASE_URL, authUrl: e.DIARY_AUTH_URL, email: e.DIARY_EMAIL, password: e.DIARY_PASSWORD, timeoutMs });
  const deps = { upstream, now: () => new Date() };
  return startHttp(() => createDiaryServer(deps), '127.0.0.1', 0, { ...HTTP_DEFAULTS, ...opts });
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A fetch that sends a chosen `Host` header (Node's fetch always sends the URL's),
 * as a browser does for a page whose foreign name resolves to this server.
 * Connects to the URL's address; used by SDK clients and by raw attack requests.
 */
export function fetchWithHost(host: string): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = { ...Object.fromEntries(new Headers(init?.headers).entries()), host };
      const req = request(url, { method: init?.method ?? 'GET', headers, signal: init?.signal ?? undefined }, (res) => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) for (const x of [v ?? []].flat()) h.append(k, x);
        const body = NULL_BODY.has(res.statusCode!) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        if (!body) res.resume();
        resolve(new Response(body, { status: res.statusCode, headers: h }));
      });
      req.on('error', reject);
      req.end(typeof init?.body === 'string' ? init.body : undefined);
    });
}

/** Connects a client over Streamable HTTP. */
export async function httpClient(url: string, era: Era, answer: Answer): Promise<TestClient> {
  const { client, prompts, ref } = makeClient(era, answer);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, prompts, answer: ref, close: () => client.close() };
}

/** A tool call reduced to its single text block and error flag. */
export type Outcome = { text: string; isError: boolean };

/** Calls a tool and returns its text and error flag (asserting exactly one text block). */
export async function call(c: TestClient | Client, name: string, args: Record<string, unknown> = {}): Promise<Outcome> {
  const client = c instanceof Client ? c : c.client;
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[]; isError?: boolean };
  if (r.content.length !== 1 || r.content[0].type !== 'text') throw new Error(`expected one text block, got ${JSON.stringify(r.content)}`);
  return { text: String(r.content[0].text), isError: r.isError === true };
}

/** Parses a JSON result, failing the test with the text when it is not JSON. */
export function parsed<T = unknown>(o: Outcome): T {
  if (o.isError) throw new Error(`tool error: ${o.text}`);
  return JSON.parse(o.text) as T;
}

/** Requests the simulator saw on the flow host for data paths (login hops excluded). */
export function dataCalls(sim: DiarySim): string[] {
  const login = new Set(['/login', '/flowSso/login', '/flowSso/redirect', '/']);
  return sim.log.filter((l) => l.host === 'flow' && !login.has(l.path)).map((l) => `${l.method} ${l.path}`);
}

/** YYYY-MM-DD of today (UTC) shifted by n days. */
export function day(n = 0): string {
  return new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
}
