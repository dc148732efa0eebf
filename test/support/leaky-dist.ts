/**
 * A build folder as people really have them (issue 24, item 4): next to the site, the
 * secrets and droppings of the machine that built it. Publishing it must send none of them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What must never be published, as site paths. */
export const SECRETS = ['.env', '.git/config', '.DS_Store', 'assets/.DS_Store', 'node_modules/left-pad/index.js', 'node_modules/.package-lock.json'];
/** What must be: the site, including the one dot-folder sites publish. */
export const PUBLISHED: Record<string, string> = {
  'index.html': '<h1>the site</h1>',
  'assets/app.js': 'console.log("app")',
  '.well-known/security.txt': 'Contact: mailto:security@example.com\n',
};

/** Writes the folder: the published files, a `.env` with a key, a `.git/` whose config holds a token, … */
export async function writeLeakyDist(dir: string): Promise<void> {
  const files: Record<string, string> = {
    ...PUBLISHED,
    '.env': 'STRIPE_SECRET_KEY=sk_live_do_not_publish\n',
    '.git/config': '[remote "origin"]\n\turl = https://ghp_tokenInTheRemoteUrl@github.com/acme/site.git\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.DS_Store': 'Bud1',
    'assets/.DS_Store': 'Bud1',
    'node_modules/left-pad/index.js': 'module.exports = 1',
    'node_modules/.package-lock.json': '{}',
  };
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), body);
  }
}

/** The line a publish of that folder prints on stderr about what it left out. */
export const LEFT_OUT_LINE =
  'sites: left out 3 files and 2 folders: .DS_Store, .env, .git/, assets/.DS_Store, node_modules/ (dotfiles and node_modules/ are not published; ';
