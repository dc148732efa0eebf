/**
 * Shared pieces of the benchmark: the generated site, archive building, folder sizes,
 * memory sampling of the service process and the publish client (curl).
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const exec = promisify(execFile);

/** A deterministic PRNG (mulberry32), so every run generates the same site. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'the site docs build release page index guide api event stream store read model project serve static file cache hash blob archive group slug title tag search list tree revision publish rollback'.split(' ');

function textBytes(rand: () => number, size: number, kind: string): Buffer {
  const head = kind === 'html' ? '<!doctype html><html><head><title>page</title></head><body>\n' : kind === 'css' ? '/* style */\n' : '// script\n';
  const parts: string[] = [head];
  let length = head.length;
  while (length < size) {
    const w = WORDS[Math.floor(rand() * WORDS.length)]!;
    const piece = kind === 'html' ? `<p>${w} ${Math.floor(rand() * 1e6)}</p>\n` : kind === 'css' ? `.${w}-${Math.floor(rand() * 1e5)}{margin:${Math.floor(rand() * 40)}px}\n` : `const ${w}${Math.floor(rand() * 1e5)} = ${Math.floor(rand() * 1e9)};\n`;
    parts.push(piece);
    length += piece.length;
  }
  return Buffer.from(parts.join('')).subarray(0, size);
}

function binaryBytes(rand: () => number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 4) buf.writeUInt32LE((rand() * 4294967296) >>> 0, Math.min(i, size - 4));
  return buf;
}

export type GeneratedSite = { readonly root: string; readonly files: readonly { path: string; size: number; binary: boolean }[]; readonly bytes: number };

/**
 * Writes a site of `fileCount` files and about `totalBytes` bytes under `root/site/`:
 * two thirds text (HTML, CSS, JS: compressible) holding 40% of the bytes, one third
 * binary (incompressible "images") holding 60%, in folders of 100 files.
 */
export async function generateSite(root: string, fileCount: number, totalBytes: number, seed = 1): Promise<GeneratedSite> {
  const rand = prng(seed);
  const files: { path: string; size: number; binary: boolean }[] = [];
  const textCount = Math.ceil((fileCount * 2) / 3);
  const binCount = fileCount - textCount;
  const textAvg = (totalBytes * 0.4) / textCount;
  const binAvg = binCount > 0 ? (totalBytes * 0.6) / binCount : 0;
  for (let i = 0; i < fileCount; i++) {
    const binary = i >= textCount;
    const avg = binary ? binAvg : textAvg;
    const size = Math.max(64, Math.round(avg * (0.5 + rand())));
    const dir = `section-${String(Math.floor(i / 100)).padStart(3, '0')}`;
    const kinds = ['html', 'css', 'js'] as const;
    const ext = binary ? 'png' : kinds[i % 3]!;
    const path = i === 0 ? 'index.html' : `${dir}/file-${String(i).padStart(5, '0')}.${ext}`;
    files.push({ path, size, binary });
  }
  let bytes = 0;
  const made = new Set<string>();
  for (const [i, f] of files.entries()) {
    const full = join(root, 'site', f.path);
    const dir = full.slice(0, full.lastIndexOf('/'));
    if (!made.has(dir)) {
      await mkdir(dir, { recursive: true });
      made.add(dir);
    }
    await writeFile(full, contentFor(f, seed * 1_000_003 + i, 0));
    bytes += f.size;
  }
  return { root, files, bytes };
}

function contentFor(f: { path: string; size: number; binary: boolean }, seed: number, version: number): Buffer {
  const rand = prng(seed + version * 7919);
  if (f.binary) return binaryBytes(rand, f.size);
  const ext = f.path.slice(f.path.lastIndexOf('.') + 1);
  return textBytes(rand, f.size, ext === 'html' ? 'html' : ext);
}

/** Rewrites 1% of the files (a different 1% each version) with new content of the same size. */
export async function changeOnePercent(site: GeneratedSite, version: number): Promise<number> {
  const step = 100;
  let changed = 0;
  for (let i = version % step; i < site.files.length; i += step) {
    const f = site.files[i]!;
    await writeFile(join(site.root, 'site', f.path), contentFor(f, 99_991 * version + i, version));
    changed++;
  }
  return changed;
}

/** Builds `site.tar.gz` (tar -czf) and `site.zip` (zip -qr) of `root/site`. */
export async function buildArchives(site: GeneratedSite, outDir: string, tag: string, withZip = true): Promise<{ tgz: string; zip: string }> {
  const tgz = join(outDir, `${tag}.tar.gz`);
  const zip = join(outDir, `${tag}.zip`);
  await exec('tar', ['-czf', tgz, '-C', site.root, 'site']);
  if (withZip) await exec('zip', ['-qr', zip, 'site'], { cwd: site.root });
  return { tgz, zip };
}

/** Total bytes of regular files under `dir`, skipping the folders named in `skip`. */
export async function folderBytes(dir: string, skip: ReadonlySet<string> = new Set()): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!skip.has(e.name)) await walk(p);
      } else if (e.isFile()) {
        bytes += (await stat(p)).size;
        files++;
      }
    }
  };
  await walk(dir);
  return { bytes, files };
}

/** The pid of the `sites serve` process listening on `port` (found through /proc). */
export async function servicePid(port: number): Promise<number> {
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0');
      if (!cmdline.includes('serve')) continue;
      const environ = await readFile(`/proc/${name}/environ`, 'utf8');
      if (environ.split('\0').includes(`SITES_LISTEN_ADDR=127.0.0.1:${port}`)) return Number(name);
    } catch {
      /* gone or not ours */
    }
  }
  throw new Error(`no service process listening on ${port}`);
}

async function statusKb(pid: number, field: string): Promise<number> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Samples VmRSS every 20 ms until stopped; returns the peak seen, in MB. */
export function sampleRss(pid: number): { stop(): Promise<{ peakMb: number; hwmMb: number }> } {
  let peak = 0;
  let pending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    pending = statusKb(pid, 'VmRSS').then((kb) => void (peak = Math.max(peak, kb)), () => undefined);
  }, 20);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
      peak = Math.max(peak, await statusKb(pid, 'VmRSS'));
      return { peakMb: peak / 1024, hwmMb: (await statusKb(pid, 'VmHWM')) / 1024 };
    },
  };
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const TICKS_PER_S = 100;

/** The utime and stime fields of a /proc stat line, in ms (fields 14 and 15; the name in parentheses may hold spaces). */
function statCpuMs(text: string, fields: readonly [number, number]): number {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' '); // rest[0] is field 3
  return ((Number(rest[fields[0] - 3]) + Number(rest[fields[1] - 3])) * 1000) / TICKS_PER_S;
}

/**
 * CPU time (user + system) a process has used so far, in ms: `total` over all its threads
 * (the writer threads, libuv's pool, V8's helpers) and `main` of its main thread alone.
 */
export async function processCpu(pid: number): Promise<{ total: number; main: number }> {
  const [all, main] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8')]);
  return { total: statCpuMs(all, [14, 15]), main: statCpuMs(main, [14, 15]) };
}

/** CPU time (user + system) of this process's children that have been waited for (cutime + cstime), in ms. */
export async function childrenCpuMs(): Promise<number> {
  return statCpuMs(await readFile('/proc/self/stat', 'utf8'), [16, 17]);
}

/** Bytes the process passed to write() so far (/proc/<pid>/io `wchar`). */
export async function writtenBytes(pid: number): Promise<number> {
  const m = /^wchar:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * Publishes an archive file with curl, the client the CI recipes use (docs/how-to/publish-from-ci.md): the multipart
 * body is streamed from disk, and curl's own `time_total` is the publish time. A Node
 * http client streaming the same file spends ~0.3 s of CPU on this 2-CPU machine
 * (measured), which the service then lacks; curl spends a few milliseconds.
 */
export async function publishFile(
  port: number,
  key: string,
  meta: Record<string, unknown>,
  archivePath: string,
): Promise<{ status: number; body: any; ms: number }> {
  const { stdout } = await exec(
    'curl',
    [
      '--silent',
      '--show-error',
      '--write-out',
      '\n%{http_code} %{time_total}',
      '-H',
      `Authorization: Bearer ${key}`,
      '-F',
      `meta=${JSON.stringify(meta)};type=application/json`,
      '-F',
      `bundle=@${archivePath};type=application/octet-stream`,
      `http://localhost:${port}/ingest/sites`,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const cut = stdout.lastIndexOf('\n');
  const [code, seconds] = stdout.slice(cut + 1).split(' ');
  const text = stdout.slice(0, cut);
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: Number(code), body, ms: Number(seconds) * 1000 };
}

/** Runs `fn` and returns its result with the elapsed milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

export const mb = (bytes: number) => bytes / (1024 * 1024);
export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
