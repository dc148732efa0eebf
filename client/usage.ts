/** The one-line synopsis, in usage errors and at the top of the help. */
export const PUBLISH_USAGE = 'publish DIR --site GROUP/SLUG [--title T] [--url URL] [--key KEY] [--include-dotfiles]';

/**
 * `publish --help`: what `sites publish --help` and `node sites.mjs publish --help` print
 * (`program` is how the command was started; `defaultUrl` where it publishes without
 * --url or SITES_URL). The CLI reference is generated from this text.
 */
export function publishHelp(program: string, defaultUrl: string): string {
  defaultUrl = defaultUrl.replace(/\/+$/, '');
  return `usage: ${program} ${PUBLISH_USAGE}

Publishes the folder DIR (the one holding index.html) as the site GROUP/SLUG. Only the
files the site does not have yet are uploaded; the files are hashed first, and a file
unchanged since the last publish from this folder is not even hashed again.

Options:
  --site GROUP/SLUG    the site: 1 to 3 labels separated by "/", the last one the slug;
                       docs/app is served at app.docs.<base domain>, demo at demo.<base domain>
  --title T            the site's title (needed when the site is new; kept otherwise)
  --url URL            the service (default: SITES_URL, else ${defaultUrl})
  --key KEY            an API key with publish on the site (default: SITES_KEY)
  --include-dotfiles   publish dotfiles and dot-folders too (see "Left out" below)
  --help               print this help

Environment:
  SITES_URL        the service's URL when --url is not given, e.g. https://sites.example.com
  SITES_KEY        the API key when --key is not given (in CI, keep it in a secret)
  SITES_CACHE_DIR  where the digest cache is kept: the digests of the last publish of each
                   folder, so that only changed files are hashed again. Default
                   $XDG_CACHE_HOME/sites, else ~/.cache/sites; "off" turns it off.

Left out:
  Dotfiles and dot-folders (.env, .git/, .DS_Store…), except a .well-known/ folder at the
  top, and every node_modules/ folder are not published; the command says how many it
  left out. A .sitesignore file in DIR lists more to leave out, one .gitignore pattern a
  line (drafts/, *.map); a "!" line publishes something left out by default (!.nojekyll).
  --include-dotfiles publishes dotfiles; node_modules/ and .sitesignore itself stay out.

On GitHub Actions, it writes the url and revision step outputs and a step summary.
Exit status: 0 published, 1 failed (one line on stderr), 2 bad usage.`;
}
