// The plain Node reference for the serving benchmark: http + fs.createReadStream, nothing else.
// Usage: node test/bench/static-server.mjs ROOT PORT
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';

const [root, port] = process.argv.slice(2);
const TYPES = { '.html': 'text/html; charset=utf-8', '.bin': 'application/octet-stream' };
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]));
  const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
  try {
    const s = await stat(file);
    res.writeHead(200, { 'Content-Type': TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream', 'Content-Length': s.size });
    createReadStream(file).pipe(res);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
server.keepAliveTimeout = 5000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
