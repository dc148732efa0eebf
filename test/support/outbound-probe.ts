/**
 * Runs one outbound request in a fresh process, so NODE_EXTRA_CA_CERTS (read at start-up)
 * can trust a test CA: `node --import tsx outbound-probe.ts URL NAME=ADDRESS…`. Prints the
 * result as JSON.
 */
import { createOutbound } from '../../host/outbound/client.ts';

const [url, ...pairs] = process.argv.slice(2);
const names = new Map(pairs.map((p) => p.split('=') as [string, string]));
const outbound = createOutbound({
  allowPrivate: true,
  timeoutMs: 5_000,
  maxBytes: 1024,
  resolve: async (host) => (names.has(host) ? [{ address: names.get(host)!, family: 4 }] : []),
});
const result = await outbound.request({ url: url! });
console.log(JSON.stringify(result.ok ? { ok: true, status: result.response.status, body: Buffer.from(result.response.body).toString() } : result));
