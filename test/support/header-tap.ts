import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type TappedRequest = { method: string; url: string; headers: http.IncomingHttpHeaders; rawHeaders: string[]; /** The service's answer, once it came. */ status?: number };

export type HeaderTap = {
  readonly port: number;
  /** Every request that reached the tap, oldest first. */
  readonly requests: TappedRequest[];
  /** The requests whose URL is `url` (path and query), oldest first. */
  seen(url: string): TappedRequest[];
  close(): Promise<void>;
};

/**
 * A transparent HTTP relay that records the request headers on their way to `targetPort`,
 * and the status of each answer (bodies and answers are streamed untouched). It sits between a proxy under test and the
 * real service, to check what the proxy actually passes on: for instance that no client-sent
 * identity header ever reaches the service.
 */
export async function startHeaderTap(targetPort: number): Promise<HeaderTap> {
  const requests: TappedRequest[] = [];
  const server = http.createServer((req, res) => {
    const tapped: TappedRequest = { method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, rawHeaders: [...req.rawHeaders] };
    requests.push(tapped);
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.rawHeaders },
      (answer) => {
        tapped.status = answer.statusCode;
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    seen: (url) => requests.filter((r) => r.url === url),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
