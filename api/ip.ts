import { isIP } from 'node:net';

/**
 * IP ranges, for the trusted-proxy check (SITES_TRUSTED_PROXIES) and the loopback rule of
 * SITES_LOCAL_ADMIN. Pure; host/config.ts parses the configured ranges into these.
 */
export type Cidr = { readonly family: 4 | 6; readonly bits: bigint; readonly prefix: number };

export function ipToBigInt(addr: string, family: 4 | 6): bigint {
  if (family === 4) return addr.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  const [head, tail] = addr.split('::') as [string, string | undefined];
  const headParts = head ? head.split(':') : [];
  let tailParts = tail !== undefined && tail !== '' ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const last = tailParts.length ? tailParts[tailParts.length - 1]! : headParts[headParts.length - 1];
  let v4: string[] = [];
  if (last && last.includes('.')) {
    const n = ipToBigInt(last, 4);
    v4 = [(n >> 16n).toString(16), (n & 0xffffn).toString(16)];
    if (tailParts.length) tailParts = tailParts.slice(0, -1);
    else headParts.pop();
  }
  const fill = tail === undefined ? [] : new Array(8 - headParts.length - tailParts.length - v4.length).fill('0');
  return [...headParts, ...fill, ...tailParts, ...v4].reduce((acc, h) => (acc << 16n) | BigInt(parseInt(h || '0', 16)), 0n);
}

/** Is the peer address inside one of the CIDRs? IPv4-mapped IPv6 peers (::ffff:a.b.c.d) match IPv4 ranges. */
export function inCidrs(peer: string | undefined, cidrs: readonly Cidr[]): boolean {
  if (!peer) return false;
  let addr = peer;
  if (addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4) addr = addr.slice(7);
  const family = isIP(addr);
  if (family === 0) return false;
  const value = ipToBigInt(addr, family as 4 | 6);
  return cidrs.some((c) => {
    if (c.family !== family) return false;
    const width = BigInt(family === 4 ? 32 : 128);
    const shift = width - BigInt(c.prefix);
    return value >> shift === c.bits >> shift;
  });
}

/** 127.0.0.0/8 and ::1. */
const LOOPBACK: readonly Cidr[] = [
  { family: 4, bits: ipToBigInt('127.0.0.0', 4), prefix: 8 },
  { family: 6, bits: 1n, prefix: 128 },
];

/** Is this listen host or peer address on this machine only? */
export function isLoopback(host: string | undefined): boolean {
  return host === 'localhost' || inCidrs(host?.replace(/^\[|\]$/g, ''), LOOPBACK);
}
