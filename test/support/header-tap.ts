import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type TappedRequest = { method: string; url: string; headers: http.IncomingHttpHeaders; rawHeaders: string[] };

export type HeaderTap = {
  readonly port: number;
  /** Every request that reached the tap, oldest first. */
  readonly requests: TappedRequest[];
  /** The requests whose URL is `url` (path and query), oldest first. */
  seen(url: string): TappedRequest[];
  close(): Promise<void>;
};

/**
 * A transparent HTTP relay that records the request headers on their way to `targetPort`
 * (bodies and answers are streamed untouched). It sits between a proxy under test and the
 * real service, to check what the proxy actually passes on: for instance that no client-sent
 * identity header ever reaches the service.
 */
export async function startHeaderTap(targetPort: number): Promise<HeaderTap> {
  const requests: TappedRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, rawHeaders: [...req.rawHeaders] });
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.rawHeaders },
      (answer) => {
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
