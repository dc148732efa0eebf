/**
 * The attack on the outbound client's name lookups, run inside its own network and mount
 * namespaces (see test/unit/outbound.test.ts): /etc/resolv.conf there names 127.0.0.1, where
 * this process listens on UDP port 53 and never answers, and /etc/hosts names
 * receiver.internal. Six requests to names nobody answers for, then the process's own
 * `dns.lookup('localhost')`, as MinIO, MongoDB and EventStoreDB reconnects do it.
 * `lax` turns the private switch on and gives the client's own resolver (c-ares) a name
 * server that says "no such name" to everything, so every name goes on to `dns.lookup`.
 * Prints the result as JSON. `node --import tsx dns-hang-probe.ts strict|lax`
 */
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutbound } from '../../host/outbound/client.ts';
import { startNameServer } from './name-server.ts';

const lax = process.argv[2] === 'lax';
const silent = await startNameServer(() => 'silent', 53);
const nxdomain = await startNameServer(() => 'nxdomain');
const outbound = createOutbound({ allowPrivate: lax, timeoutMs: 1_000, maxBytes: 1024, ...(lax ? { nameServers: [nxdomain.server] } : {}) });

// A receiver the hosts file names: reached through the system's lookup (private switch only).
const receiver = createServer((_req, res) => res.end('received'));
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const own = lax ? await outbound.request({ url: `http://receiver.internal:${(receiver.address() as AddressInfo).port}/` }) : undefined;
receiver.close();

const started = Date.now();
const results = await Promise.all(Array.from({ length: 6 }, (_, i) => outbound.request({ url: `https://unanswered-${i}.example/` })));
const requestsMs = Date.now() - started;

// Capped, so the unfixed client shows its stall without holding the test for half a minute.
const CAP_MS = 8_000;
const before = Date.now();
const localhost = await Promise.race([lookup('localhost').then((a) => a.address), new Promise<string>((r) => setTimeout(() => r('still waiting'), CAP_MS).unref())]);
const localhostMs = Date.now() - before;
console.log(
  JSON.stringify({
    receiver: own && (own.ok ? Buffer.from(own.response.body).toString() : own.refusal.reason),
    reasons: results.map((r) => (r.ok ? 'ok' : r.refusal.reason)),
    requestsMs,
    localhost,
    localhostMs,
    queries: silent.names.length,
  }),
);
process.exit(0);
