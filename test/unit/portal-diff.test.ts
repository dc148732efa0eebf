import { describe, expect, it } from 'vitest';
import { TEXT_DIFF_CAP, fileKind, lineDiff, looksBinary, withinTextCap } from '../../portal/src/diff-model.ts';

describe('portal diff model', () => {
  it('tells text, images and other files apart by extension', () => {
    expect(fileKind('index.html')).toBe('text');
    expect(fileKind('css/site.CSS')).toBe('text');
    expect(fileKind('img/logo.png')).toBe('image');
    expect(fileKind('logo.svg')).toBe('image');
    expect(fileKind('font.woff2')).toBe('other');
    expect(withinTextCap(TEXT_DIFF_CAP, 10)).toBe(true);
    expect(withinTextCap(TEXT_DIFF_CAP + 1, 10)).toBe(false);
    expect(looksBinary('abc\u0000def')).toBe(true);
    expect(looksBinary('plain text')).toBe(false);
  });

  it('numbers the lines of a unified diff with 3 lines of context', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join('\n') + '\n';
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n') + '\n';
    const d = lineDiff(before, after)!;
    expect(d.added).toBe(2);
    expect(d.removed).toBe(1);
    expect(d.truncated).toBe(0);
    expect(d.lines[0]).toEqual({ kind: 'hunk', text: '@@ -2,9 +2,10 @@' });
    expect(d.lines.find((l) => l.kind === 'del')).toEqual({ kind: 'del', old: 5, text: 'e' });
    expect(d.lines.filter((l) => l.kind === 'add')).toEqual([
      { kind: 'add', new: 5, text: 'E' },
      { kind: 'add', new: 11, text: 'k' },
    ]);
    expect(d.lines.find((l) => l.kind === 'ctx')).toEqual({ kind: 'ctx', old: 2, new: 2, text: 'b' });
  });

  it('says when a file lost its final newline, and shows nothing for equal texts', () => {
    const d = lineDiff('x\n', 'x')!;
    expect(d.lines.some((l) => l.kind === 'note' && l.text === 'No newline at end of file')).toBe(true);
    expect(lineDiff('same\n', 'same\n')!.lines).toEqual([]);
  });

  it('stops at the line budget and counts what it left out', () => {
    const before = Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join('');
    const after = Array.from({ length: 100 }, (_, i) => `LINE ${i}\n`).join('');
    const d = lineDiff(before, after, { maxLines: 50 })!;
    expect(d.lines.filter((l) => l.kind !== 'hunk')).toHaveLength(50);
    expect(d.truncated).toBe(150);
    expect(d.added + d.removed).toBe(200);
  });
});
