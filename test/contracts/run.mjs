// `npm run test:contracts`: every adapter contract suite, against the real servers whose
// URLs are set (SITES_EVENTSTORE_URL, SITES_MONGO_URL, SITES_S3_ENDPOINT with
// SITES_S3_ACCESS_KEY / SITES_S3_SECRET_KEY), the embedded adapters and s3rver always.
// The production checks of issue 32 run first (cold start, the MongoDB write protocol and
// its indexes, two projectors racing, S3 failures), then every other contract suite.
// Extra arguments go to vitest (e.g. `-t explain`).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const extra = process.argv.slice(2);

const FIRST = [
  'test/e2e/compose-file.test.ts',
  'test/e2e/store-wait.test.ts',
  'test/contracts/readmodel-mongo-write.test.ts',
  'test/contracts/readmodel-mongo-query.test.ts',
  'test/contracts/readmodel.test.ts',
  'test/contracts/blobstore.s3.test.ts',
];

const redact = (url) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i, (_, scheme, user) => `${scheme}${user.split(':')[0]}:***@`);
const servers = [
  ['EventStoreDB', 'SITES_EVENTSTORE_URL'],
  ['MongoDB', 'SITES_MONGO_URL'],
  ['S3', 'SITES_S3_ENDPOINT'],
];
console.log('contract suites against:');
for (const [name, variable] of servers) {
  const url = process.env[variable];
  console.log(`  ${name.padEnd(13)}${url ? `${variable}=${redact(url)}` : `${variable} not set: embedded adapter${name === 'S3' ? ' and s3rver' : ''} only`}`);
}

const run = (label, args) => {
  console.log(`\n== ${label}`);
  return spawnSync(process.execPath, [vitest, 'run', ...args, ...extra], { cwd: root, stdio: 'inherit', env: process.env }).status ?? 1;
};

const first = run('production checks (issue 32) first', FIRST);
const rest = run('every other contract suite', ['test/contracts', ...FIRST.flatMap((f) => ['--exclude', f])]);
process.exit(first || rest);
