/**
 * The attack on the outbound client's name lookups, run inside its own network and mount
 * namespaces (see test/unit/outbound.test.ts): /etc/resolv.conf there names 127.0.0.1, where
 * this process listens on UDP port 53 and never answers. Six requests to names nobody
 * answers for, then the process's own `dns.lookup('localhost')`, as MinIO, MongoDB and
 * EventStoreDB reconnects do it. Prints the result as JSON.
 * `node --import tsx dns-hang-probe.ts strict|lax`
 */
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { createOutbound } from '../../host/outbound/client.ts';

const mode = process.argv[2];
const socket = dgram.createSocket('udp4');
let queries = 0;
socket.on('message', () => queries++);
await new Promise<void>((resolve) => socket.bind(53, '127.0.0.1', resolve));

const outbound = createOutbound({ allowPrivate: mode === 'lax', timeoutMs: 1_000, maxBytes: 1024 });
const started = Date.now();
const results = await Promise.all(Array.from({ length: 6 }, (_, i) => outbound.request({ url: `https://unanswered-${i}.example/` })));
const requestsMs = Date.now() - started;

// Capped, so the unfixed client shows its stall without holding the test for half a minute.
const CAP_MS = 8_000;
const before = Date.now();
const localhost = await Promise.race([lookup('localhost').then((a) => a.address), new Promise<string>((r) => setTimeout(() => r('still waiting'), CAP_MS).unref())]);
const localhostMs = Date.now() - before;
console.log(JSON.stringify({ reasons: results.map((r) => (r.ok ? 'ok' : r.refusal.reason)), requestsMs, localhost, localhostMs, queries }));
process.exit(0);
