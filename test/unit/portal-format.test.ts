import { describe, expect, it } from 'vitest';
import { formatBytes, plural } from '../../portal/src/format.ts';

describe('portal formatting', () => {
  it('shows sizes in decimal units, labelled as such', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1_000)).toBe('1.0 KB');
    expect(formatBytes(48_000)).toBe('48 KB');
    expect(formatBytes(999_400)).toBe('999 KB');
    expect(formatBytes(999_600)).toBe('1.0 MB');
    expect(formatBytes(1_000_000)).toBe('1.0 MB');
    expect(formatBytes(104_857_600)).toBe('105 MB');
    expect(formatBytes(2_500_000_000)).toBe('2.5 GB');
  });

  it('says 1 file and 2 files', () => {
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(2, 'file')).toBe('2 files');
    expect(plural(5000, 'file')).toBe('5,000 files');
  });
});
