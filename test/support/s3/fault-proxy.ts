import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { SeenRequest } from './sigv4-proxy.ts';

/**
 * An answer the proxy gives instead of the server, `times` times, to requests `match` picks:
 * `status` with an S3 error document naming `code`; `when` says whether the request body is
 * read first (`after-body`, as MinIO answers a failed PUT) or not at all (`before-body`, the
 * connection is closed after the answer).
 */
export type Fault = {
  readonly match: (req: SeenRequest) => boolean;
  readonly status: number;
  readonly code?: string;
  times: number;
  readonly when?: 'after-body' | 'before-body';
};

export type FaultProxy = {
  /** `http://127.0.0.1:<port>`: what the client is given as its endpoint. */
  readonly endpoint: string;
  /** Every request that reached the proxy, in order (faults included). */
  readonly requests: SeenRequest[];
  /** Bytes of each request body the server received, by request index (faulted ones: what was read). */
  readonly bodyBytes: Map<number, number>;
  inject(fault: Fault): void;
  stop(): Promise<void>;
};

/**
 * A transparent proxy in front of an S3 endpoint (s3rver's checking proxy, or a real MinIO):
 * requests go through unchanged, Host header included, so signatures made for the proxy's
 * address still verify (S3 signs the Host the client sent, and path-style requests do not
 * care which name it is). It counts what passes, and can answer in the server's place to
 * inject failures (a 503 during an upload, a full disk).
 */
export async function startFaultProxy(upstream: string, port = 0): Promise<FaultProxy> {
  const target = new URL(upstream);
  const requests: SeenRequest[] = [];
  const bodyBytes = new Map<number, number>();
  const faults: Fault[] = [];
  const server = createServer((req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
    const seen = { method: req.method ?? '', path, query };
    const index = requests.push(seen) - 1;
    const fault = faults.find((f) => f.times > 0 && f.match(seen));
    if (fault) {
      fault.times--;
      void answer(req, res, fault, (n) => bodyBytes.set(index, n));
      return;
    }
    let counted = 0;
    req.on('data', (chunk: Buffer) => {
      counted += chunk.length;
      bodyBytes.set(index, counted);
    });
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers });
    up.on('response', (answerFromServer) => {
      res.writeHead(answerFromServer.statusCode ?? 502, answerFromServer.headers);
      pipeline(answerFromServer, res).catch(() => undefined);
    });
    up.on('error', () => res.destroy());
    pipeline(req, up).catch(() => up.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    bodyBytes,
    inject: (fault) => void faults.push(fault),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, fault: Fault, read: (bytes: number) => void): Promise<void> {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${fault.code ?? 'ServiceUnavailable'}</Code><Message>injected by the test proxy</Message></Error>`;
  if (fault.when === 'before-body') {
    read(0);
    res.writeHead(fault.status, { 'Content-Type': 'application/xml', Connection: 'close' });
    res.end(xml, () => req.socket.destroy());
    return;
  }
  let n = 0;
  for await (const chunk of req) n += (chunk as Buffer).length;
  read(n);
  res.writeHead(fault.status, { 'Content-Type': 'application/xml' });
  res.end(xml);
}
