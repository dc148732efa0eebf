import { describe, expect, it } from 'vitest';
import { peerKey } from '../../host/peer-cap.ts';

describe('the client an address stands for (connection cap)', () => {
  it('is the IPv4 address, also when the socket reports it IPv4-mapped', () => {
    expect(peerKey('203.0.113.7')).toBe('203.0.113.7');
    expect(peerKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address: one host hopping addresses in its /64 is still one client', () => {
    expect(peerKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:3::1')).not.toBe(peerKey('2001:db8:1:2::1'));
    expect(peerKey('::1')).toBe('0:0:0:0::/64');
  });

  it('is nothing for what is not an address', () => {
    expect(peerKey(undefined)).toBeUndefined();
    expect(peerKey('not-an-ip')).toBeUndefined();
  });
});
