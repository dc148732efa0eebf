import { formatBytes, plural } from './format.ts';

export type Progress = { file(bytes: number): void; end(): void };

/**
 * The upload's progress line on stderr (files and bytes), redrawn in place; nothing when
 * stderr is not a terminal, so CI logs and captured output stay clean. `end()` moves
 * past the line, so a failure that follows is printed on a line of its own.
 */
export function progressLine(totalBytes: number, totalFiles: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { file() {}, end() {} };
  let bytes = 0;
  let files = 0;
  let drawn = false;
  const width = 30;
  return {
    file(size) {
      bytes += size;
      files++;
      const ratio = totalBytes === 0 ? files / Math.max(totalFiles, 1) : bytes / totalBytes;
      const filled = Math.round(ratio * width);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%`;
      stream.write(`\r${bar} ${formatBytes(bytes)} of ${formatBytes(totalBytes)}, ${files} of ${plural(totalFiles, 'file')}\x1b[K`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
