// The floor of any Node server for the serving benchmark: http.createServer answering each
// file from memory with one end(), no headers beyond Node's own. Usage: node test/bench/floor-server.mjs ROOT PORT
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [root, port] = process.argv.slice(2);
const files = new Map(readdirSync(root).map((name) => [`/${name}`, readFileSync(join(root, name))]));
const server = createServer((req, res) => {
  const body = files.get(req.url);
  if (!body) res.statusCode = 404;
  res.end(body);
});
server.keepAliveTimeout = 5000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
