// The benchmark's webhook receiver, in a process of its own: counts POSTs and notes when
// the first and the last arrived (its own clock, so the service's rate and the plain loop's
// are timed the same way), and how each round trip divides between the sender and itself:
// `senderUs`, the median time from the end of one answer to the arrival of the next
// request (the sender's turn, the network stack's included), `receiverUs`, from a request's
// arrival to the end of its answer; `senderSlowUs`: the sender's turns' time past twice their
// median, per request (what stalls add to each round trip on average). GET /stats answers
// {count, firstMs, lastMs, senderUs, receiverUs, senderSlowUs}; POST /reset clears them; POST /down and /up switch the service's path (/in)
// between answering 503 and 204 (the plain loop's, /loop, always answers 204). Prints its port.
import { createServer } from 'node:http';

let count = 0;
let firstMs = 0;
let lastMs = 0;
let down = false;
let answeredAt = 0;
let senderTurns = [];
let receiverTurns = [];
const median = (xs) => (xs.length === 0 ? 0 : Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] * 1000));
const slow = (xs) => {
  const bound = (2 * median(xs)) / 1000;
  return xs.length === 0 ? 0 : Math.round((xs.reduce((sum, x) => sum + Math.max(0, x - bound), 0) / xs.length) * 1000);
};
const server = createServer((req, res) => {
  const arrived = performance.now();
  req.on('data', () => undefined);
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/stats') return void res.end(JSON.stringify({ count, firstMs, lastMs, senderUs: median(senderTurns), receiverUs: median(receiverTurns), senderSlowUs: slow(senderTurns) }));
    if (req.url === '/reset') {
      count = firstMs = lastMs = answeredAt = 0;
      senderTurns = [];
      receiverTurns = [];
      return void res.end('ok');
    }
    if (req.url === '/down' || req.url === '/up') {
      down = req.url === '/down';
      return void res.end('ok');
    }
    if (down && req.url === '/in') {
      res.writeHead(503);
      return void res.end('down');
    }
    const now = performance.timeOrigin + arrived;
    if (count === 0) firstMs = now;
    else senderTurns.push(arrived - answeredAt);
    lastMs = now;
    count++;
    res.writeHead(204);
    res.end();
    answeredAt = performance.now();
    receiverTurns.push(answeredAt - arrived);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
