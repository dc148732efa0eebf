import { createHash, createHmac } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';

/** One request that reached the front proxy (method, path, raw query). */
export type SeenRequest = { readonly method: string; readonly path: string; readonly query: string };

/**
 * A checking proxy in front of s3rver. s3rver parses signature-v4 headers but never
 * verifies them ("unimplemented" in its source) and ignores `x-amz-content-sha256`,
 * so on its own it would accept a wrongly signed request or a body that does not match
 * its declared hash. Real MinIO and S3 refuse both; this proxy does too, so the adapter's
 * hand-signed streamed PUT is really checked by the tests.
 */
export async function startSigV4Proxy(upstreamPort: number, accessKey: string, secretKey: string): Promise<{
  port: number;
  requests: SeenRequest[];
  server: Server;
}> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
    requests.push({ method: req.method ?? '', path, query });
    const problem = checkSignature(req, path, query, accessKey, secretKey);
    if (problem) return fail(res, 403, problem.code, problem.message);
    // The body is checked in full before anything reaches s3rver, so a mismatch stores
    // nothing (a test server: holding a 20 MB body in memory is fine here).
    collect(req).then(
      (body) => {
        const declared = String(req.headers['x-amz-content-sha256'] ?? '');
        const actual = createHash('sha256').update(body).digest('hex');
        if (declared !== 'UNSIGNED-PAYLOAD' && declared !== actual) {
          return fail(res, 400, 'XAmzContentSHA256Mismatch', `payload SHA-256 ${actual} does not match x-amz-content-sha256 ${declared}`);
        }
        const upstream = request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers });
        upstream.on('response', (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          pipeline(up, res).catch(() => undefined); // the client may stop reading (range, abort)
        });
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests, server };
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/xml', Connection: 'close' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

async function collect(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string): Buffer => createHmac('sha256', key).update(s).digest();

function checkSignature(req: IncomingMessage, path: string, query: string, accessKey: string, secretKey: string): { code: string; message: string } | undefined {
  const auth = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { code: 'AccessDenied', message: `not a signature-v4 request: ${auth.slice(0, 40)}` };
  const [, key, day, region, signedHeaders, signature] = m;
  if (key !== accessKey) return { code: 'InvalidAccessKeyId', message: 'unknown access key' };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
  if (!amzDate.startsWith(day) || !payloadHash) return { code: 'AccessDenied', message: 'x-amz-date or x-amz-content-sha256 missing' };
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('x-amz-content-sha256')) {
    return { code: 'AccessDenied', message: 'host and x-amz-content-sha256 must be signed' };
  }
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalQuery = query
    ? query.split('&').map((p) => (p.includes('=') ? p : `${p}=`)).sort().join('&')
    : '';
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretKey}`, day), region), 's3'), 'aws4_request');
  if (hmac(signingKey, stringToSign).toString('hex') !== signature) {
    return { code: 'SignatureDoesNotMatch', message: 'the request signature does not match' };
  }
  return undefined;
}
