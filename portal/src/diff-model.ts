/**
 * What the diff view can show of a changed file, and the unified line diff of a text file.
 * The line diff uses jsdiff (`diff` on npm): small, dependency-free, maintained for over a
 * decade, with an edit-time budget so a pathological pair cannot freeze the page.
 */
import { structuredPatch } from 'diff';

/** Extensions read as text (the Files preview and the line diff). */
export const TEXT_EXT = /\.(html?|css|m?js|cjs|json|txt|md|xml|svg|csv|tsv|ya?ml|toml|map|ts|tsx|jsx|webmanifest|ini|log|sh|py|rb|go|rs|conf|env|gitignore)$/i;
export const IMAGE_EXT = /\.(png|jpe?g|gif|webp|avif|ico|bmp|svg)$/i;
/** Neither side of a line diff may be larger: past that the diff view offers the two downloads instead. */
export const TEXT_DIFF_CAP = 200_000;
/** Lines of a line diff shown before the rest is summarised (a huge rewrite is not read line by line). */
export const MAX_DIFF_LINES = 1_500;

export type FileKind = 'text' | 'image' | 'other';

/** Images first: an SVG is text too, but two pictures side by side say more than its XML. */
export function fileKind(path: string): FileKind {
  if (IMAGE_EXT.test(path)) return 'image';
  if (TEXT_EXT.test(path)) return 'text';
  return 'other';
}

/** Whether two sizes allow a line diff. */
export function withinTextCap(...sizes: number[]): boolean {
  return sizes.every((s) => s <= TEXT_DIFF_CAP);
}

export type DiffLine =
  | { kind: 'hunk'; text: string }
  | { kind: 'ctx' | 'add' | 'del'; old?: number; new?: number; text: string }
  | { kind: 'note'; text: string };

export type LineDiff = { lines: DiffLine[]; added: number; removed: number; truncated: number };

/** Bytes that are no text: a NUL in the first 8 KB, as git decides. */
export function looksBinary(text: string): boolean {
  return text.slice(0, 8000).includes('\u0000');
}

/**
 * The unified diff of two texts with 3 lines of context, as numbered lines. `undefined` when
 * the two differ too much to compute within the time budget.
 */
export function lineDiff(before: string, after: string, opts: { timeoutMs?: number; maxLines?: number } = {}): LineDiff | undefined {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3, timeout: opts.timeoutMs ?? 1500 });
  if (!patch) return undefined;
  const max = opts.maxLines ?? MAX_DIFF_LINES;
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  let shown = 0;
  let truncated = 0;
  for (const h of patch.hunks) {
    let o = h.oldStart;
    let n = h.newStart;
    const body: DiffLine[] = [];
    for (const raw of h.lines) {
      const mark = raw[0];
      const text = raw.slice(1);
      if (mark === '+') {
        added++;
        body.push({ kind: 'add', new: n++, text });
      } else if (mark === '-') {
        removed++;
        body.push({ kind: 'del', old: o++, text });
      } else if (mark === '\\') {
        body.push({ kind: 'note', text: text.trim() });
      } else {
        body.push({ kind: 'ctx', old: o++, new: n++, text });
      }
    }
    if (shown >= max) {
      truncated += body.length;
      continue;
    }
    lines.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
    const room = max - shown;
    lines.push(...body.slice(0, room));
    shown += Math.min(room, body.length);
    truncated += Math.max(0, body.length - room);
  }
  return { lines, added, removed, truncated };
}
