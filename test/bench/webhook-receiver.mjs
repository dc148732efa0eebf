// The benchmark's webhook receiver, in a process of its own: counts POSTs and notes when
// the first and the last arrived (its own clock, so the service's rate and the plain loop's
// are timed the same way). GET /stats answers {count, firstMs, lastMs}; POST /reset clears
// them; POST /down and /up switch between answering 503 and 204. Prints its port.
import { createServer } from 'node:http';

let count = 0;
let firstMs = 0;
let lastMs = 0;
let down = false;
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/stats') return void res.end(JSON.stringify({ count, firstMs, lastMs }));
    if (req.url === '/reset') {
      count = firstMs = lastMs = 0;
      return void res.end('ok');
    }
    if (req.url === '/down' || req.url === '/up') {
      down = req.url === '/down';
      return void res.end('ok');
    }
    if (down) {
      res.writeHead(503);
      return void res.end('down');
    }
    const now = performance.timeOrigin + performance.now();
    if (count === 0) firstMs = now;
    lastMs = now;
    count++;
    res.writeHead(204);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
