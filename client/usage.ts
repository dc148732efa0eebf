/** The one-line synopsis, in usage errors and at the top of the help. */
export const PUBLISH_USAGE = 'publish DIR --site GROUP/SLUG [--title T] [--url URL] [--key KEY] [--include-dotfiles] [--preview NAME [--github-comment [--pull-request N]]]';

/** The two lines of `previews`. */
export const PREVIEWS_USAGE = `previews list GROUP/SLUG [--json] [--url URL] [--key KEY]
       previews remove GROUP/SLUG NAME [--if-exists] [--github-comment [--pull-request N]] [--url URL] [--key KEY]`;

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
  --preview NAME       publish a preview of the site instead of its live content, at
                       https://NAME--SLUG.GROUP.<base domain>/ (e.g. pr-42); the live site is
                       untouched, and a key with only the preview capability is enough. Prints
                       the preview's URL, the files added, changed and removed against live,
                       and the changed pages. It expires some days after its last publish.
  --github-comment     with --preview, on GitHub Actions: keep one comment on the pull request
                       up to date with the preview (URL, revision, counts, changed pages);
                       needs GITHUB_TOKEN allowed to write pull requests
  --pull-request N     the pull request to comment on (default: the one of the job's event)
  --help               print this help

Environment:
  SITES_URL        the service's URL when --url is not given, e.g. https://sites.example.com
  SITES_KEY        the API key when --key is not given (in CI, keep it in a secret)
  GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_EVENT_PATH
                   where --github-comment comments (set by GitHub Actions)
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


/** `previews --help`. */
export function previewsHelp(program: string, defaultUrl: string): string {
  defaultUrl = defaultUrl.replace(/\/+$/, '');
  return `usage: ${program} ${PREVIEWS_USAGE.replace('\n       ', `\n       ${program} `)}

A preview is a named copy of a site beside its live content (${program} publish DIR --site
GROUP/SLUG --preview NAME makes or updates one), served at https://NAME--SLUG.GROUP.<base>/.
The service removes it some days after its last publish; a pull request's job removes it
when the pull request closes.

previews list      the site's previews: name, URL, last published, expiry, by whom
  --json           as the service describes them ({"previews": [...]})
previews remove    removes the preview NAME of the site
  --if-exists      a preview that is already gone (expired, never published) is no failure
  --github-comment on GitHub Actions: mark the pull request's preview comment as removed
                   (needs GITHUB_TOKEN; a pull request without the comment gets none)
  --pull-request N the pull request of that comment (default: the one of the job's event)

  --url URL        the service (default: SITES_URL, else ${defaultUrl})
  --key KEY        an API key with preview (or publish) on the site (default: SITES_KEY)

Exit status: 0 done, 1 failed (one line on stderr), 2 bad usage.`;
}
