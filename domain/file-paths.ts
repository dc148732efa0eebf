import { ValidationError } from './errors.ts';

/**
 * The path rules every published file name meets (spec §4), whether it comes from an
 * archive entry or from the manifest of an incremental deploy (spec §10). Pure: the
 * archive reader (host/archive), the MCP tool and the deploy command share this one rule.
 */

const DRIVE_LETTER = /^[A-Za-z]:/;

/** `"name"` with control characters escaped, so an error message can always be printed. */
export const shown = (raw: string): string => JSON.stringify(raw);

/** How an error names what it checks: an archive's entries, or the files of a deploy manifest. */
export type PathWording = { readonly entry: string; readonly anEntry: string; readonly container: string; readonly holds: string };
export const ARCHIVE_WORDING: PathWording = { entry: 'archive entry', anEntry: 'an archive entry', container: 'archive', holds: 'archive has' };
export const DEPLOY_WORDING: PathWording = { entry: 'file', anEntry: 'a file', container: 'site', holds: 'files lists' };

/**
 * Splits a raw entry name into its path segments, dropping empty and `.` segments.
 * Throws ValidationError for anything that could escape the extraction root or be read
 * differently by another tool (NUL, backslash, absolute, drive letter, `..`). An empty
 * result means "the root itself", which only a directory entry may name (`./`).
 */
export function entrySegments(raw: string, w: PathWording = ARCHIVE_WORDING): string[] {
  if (raw === '') throw new ValidationError(`${w.anEntry} has an empty name`);
  if (raw.includes('\0')) throw new ValidationError(`${w.entry} ${shown(raw)} has a NUL character in its name`);
  // A backslash is a separator on Windows: `..\x` would escape there.
  if (raw.includes('\\')) throw new ValidationError(`${w.entry} ${shown(raw)} has a backslash in its name`);
  if (raw.startsWith('/')) throw new ValidationError(`${w.entry} ${shown(raw)} is an absolute path`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  // Checked after dropping "./" prefixes: ".//C:/x" must not become "C:/x".
  if (DRIVE_LETTER.test(segments[0] ?? '')) {
    throw new ValidationError(`${w.entry} ${shown(raw)} starts with a Windows drive letter`);
  }
  // Rejected even when it would stay inside ("a/../b"): no legitimate archive needs it.
  if (segments.includes('..')) throw new ValidationError(`${w.entry} ${shown(raw)} escapes the ${w.container} root with ".."`);
  return segments;
}

/**
 * Normalises a raw entry name to a relative POSIX path (`./a//b.css` → `a/b.css`).
 * Pure; throws ValidationError for unsafe or empty names.
 */
export function normaliseEntryPath(raw: string, w: PathWording = ARCHIVE_WORDING): string {
  const segments = entrySegments(raw, w);
  if (segments.length === 0) throw new ValidationError(`${w.entry} ${shown(raw)} has an empty path`);
  return segments.join('/');
}

/** What the reader has seen so far, to refuse duplicates and file/directory clashes. */
export type PathRegistry = {
  /** Validates a regular file's name and returns its normalised path. */
  addFile(raw: string): string;
  /** Validates a directory entry's name (the root `./` is allowed). */
  addDirectory(raw: string): void;
};

/**
 * A class, not closures made per call: an archive reader calls `addFile` once per entry
 * from its hot loop, whose optimised code then depends on the function called; closures
 * made per archive would make V8 throw that code away and compile it again every publish.
 */
class Registry implements PathRegistry {
  private readonly files = new Set<string>();
  private readonly dirs = new Set<string>();

  constructor(private readonly w: PathWording) {}

  addFile(raw: string): string {
    const { w } = this;
    const segments = entrySegments(raw, w);
    if (segments.length === 0) throw new ValidationError(`${w.entry} ${shown(raw)} has an empty path`);
    const path = segments.join('/');
    if (this.files.has(path)) throw new ValidationError(`${w.holds} the path ${shown(path)} twice`);
    if (this.dirs.has(path)) throw new ValidationError(`${w.entry} ${shown(raw)} is a file, but ${shown(path)} is also a directory`);
    this.addDirs(segments, segments.length - 1, raw);
    this.files.add(path);
    return path;
  }

  addDirectory(raw: string): void {
    const segments = entrySegments(raw, this.w);
    this.addDirs(segments, segments.length, raw);
  }

  // Every ancestor of an entry is a directory; one that is also a file would make the
  // manifest ambiguous ("a" is both a page and a folder).
  private addDirs(segments: readonly string[], count: number, raw: string): void {
    let path = '';
    for (let i = 0; i < count; i++) {
      const segment = segments[i]!;
      path = path === '' ? segment : `${path}/${segment}`;
      if (this.files.has(path)) {
        throw new ValidationError(`${this.w.entry} ${shown(raw)} needs ${shown(path)} to be a directory, but it is a file`);
      }
      this.dirs.add(path);
    }
  }
}

export function createPathRegistry(w: PathWording = ARCHIVE_WORDING): PathRegistry {
  return new Registry(w);
}
