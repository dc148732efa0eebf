import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore from 'ignore';
import { ClientError } from './errors.ts';

/** The file in the published folder that lists more to leave out, in .gitignore syntax. */
export const IGNORE_FILE = '.sitesignore';

/**
 * What a publish leaves out unless told otherwise: a build folder often holds what must
 * never be served (`.env`, `.git/config` with a token in a remote URL, an editor's or the
 * OS's droppings, a stray `node_modules/`). `.well-known/` at the top is a dot-folder that
 * sites do publish (security.txt, domain verification); a dotfile inside it is still left out.
 */
const DOTFILES = ['.*', '!/.well-known/'];
const ALWAYS = ['node_modules/'];

export type LeaveOut = {
  /** `name` is the path relative to the folder with `/` separators; folders are asked about before they are walked. */
  leavesOut(name: string, isFolder: boolean): boolean;
  /** Whether the folder has a .sitesignore (the summary then names it). */
  readonly hasIgnoreFile: boolean;
};

/**
 * The rules, in the order gitignore reads them (a later line wins): the defaults, then the
 * folder's `.sitesignore`, whose `!pattern` lines can publish something the defaults leave
 * out (`!.nojekyll`, `!/.htaccess`). The `.sitesignore` itself is never published.
 * `ignore` is the matcher eslint and prettier use for their ignore files.
 */
export function leaveOutRules(dir: string, includeDotfiles: boolean): LeaveOut {
  let text: string | undefined;
  try {
    text = readFileSync(join(dir, IGNORE_FILE), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new ClientError(`cannot read ${join(dir, IGNORE_FILE)} (${code ?? (err as Error).message})`);
  }
  const rules = ignore().add(includeDotfiles ? ALWAYS : [...DOTFILES, ...ALWAYS]);
  if (text !== undefined) rules.add(text);
  rules.add(`/${IGNORE_FILE}`);
  return {
    leavesOut: (name, isFolder) => rules.ignores(isFolder ? `${name}/` : name),
    hasIgnoreFile: text !== undefined,
  };
}
