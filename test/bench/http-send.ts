/** One HTTP request of the benchmark's load generators, its answer read whole (or only counted). */
import { request, type Agent } from 'node:http';

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; bytes: number; body: Buffer };

/**
 * Sends a request and reads its answer. `keep: false` counts the body's bytes and drops them
 * as they come (`body` is empty): a load generator that keeps each 3.5 MB answer until its
 * next collection makes its own pauses part of what it measures.
 */
export function send(agent: Agent, port: number, method: string, path: string, headers: Record<string, string>, json?: string, keep = true): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent, headers: { ...(json ? { 'Content-Type': 'application/json' } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (keep) chunks.push(c);
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, bytes, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(json);
  });
}
