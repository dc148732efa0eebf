import dns from 'node:dns';

/**
 * Browsers and curl resolve every `*.localhost` name to loopback (RFC 6761); glibc does
 * not. The tests reach site hosts like `app.docs.localhost` with Node's fetch, so resolve
 * them the way a browser would. Test-only: the service itself never resolves names.
 */
const original = dns.lookup;
function lookup(hostname: string, options: unknown, callback?: unknown): void {
  const cb = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
  const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean };
  if (typeof hostname === 'string' && (hostname === 'localhost' || hostname.endsWith('.localhost'))) {
    if (opts.all) return void process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
    return void process.nextTick(cb, null, '127.0.0.1', 4);
  }
  return (original as (...args: unknown[]) => void).call(dns, hostname, options, callback);
}
(dns as { lookup: unknown }).lookup = lookup;
