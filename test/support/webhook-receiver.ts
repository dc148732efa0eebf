import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export type Received = { readonly path: string; readonly headers: IncomingHttpHeaders; readonly body: string; readonly at: number };

/**
 * A webhook receiver on 127.0.0.1 for the tests: records every request and answers what
 * `answer` says (200 by default). `stop()` closes it, `start()` opens it again on the same
 * port (a receiver that was down).
 */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; /** answer this late */ delayMs?: number };

export async function startReceiver(answer: (req: Received, n: number) => Answer = () => ({ status: 200 })) {
  const received: Received[] = [];
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const r: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
          received.push(r);
          const a = receiver.answer(r, received.length);
          setTimeout(() => {
            res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
            res.end(a.body ?? '');
          }, a.delayMs ?? 0);
        });
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const receiver = {
    received,
    answer,
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    /** Resolves once `n` requests (matching `where`) arrived, or fails after `ms`. */
    async waitFor(n: number, ms = 20_000, where: (r: Received) => boolean = () => true): Promise<Received[]> {
      const deadline = Date.now() + ms;
      for (;;) {
        const got = received.filter(where);
        if (got.length >= n) return got;
        if (Date.now() > deadline) throw new Error(`the receiver got ${got.length} of ${n} requests within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    start: listen,
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
        server = undefined;
      }),
  };
  await listen();
  return receiver;
}
