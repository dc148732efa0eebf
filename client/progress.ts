import { formatBytes, formatEta } from './format.ts';

export type Progress = { readonly add: (bytes: number) => void; readonly end: () => void };

/**
 * A progress bar by bytes with an ETA and the count of files (each `add` is one file),
 * redrawn in place on stderr at most ten times a second; nothing at all when stderr is not
 * a terminal, so CI logs get one summary line.
 */
export function progressBar(label: string, totalBytes: number, totalFiles: number, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): Progress {
  if (!stream.isTTY || totalBytes === 0) return { add() {}, end() {} };
  const started = now();
  let done = 0;
  let files = 0;
  let drawnAt = 0;
  const width = 30;
  const draw = () => {
    const ratio = Math.min(1, done / totalBytes);
    const filled = Math.round(ratio * width);
    const elapsed = (now() - started) / 1000;
    const eta = done > 0 ? (elapsed * (totalBytes - done)) / done : Number.NaN;
    stream.write(
      `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ` +
        `${files.toLocaleString('en')}/${totalFiles.toLocaleString('en')} files, ${formatBytes(done)} of ${formatBytes(totalBytes)}, ETA ${formatEta(eta)}\x1b[K`,
    );
    drawnAt = now();
  };
  return {
    add(bytes) {
      done += bytes;
      files++;
      if (now() - drawnAt >= 100 || done >= totalBytes) draw();
    },
    end() {
      if (drawnAt) stream.write('\n');
      drawnAt = 0;
    },
  };
}
