import { CAPABILITIES } from '../../domain/grants.ts';

/**
 * The CLI's own help: `sites --help` and `sites COMMAND --help` print these on stdout and
 * exit 0. The CLI reference is generated from them, so they are the one description of
 * the commands. `sites publish --help` is the publishing client's (client/usage.ts).
 */

export const USAGE = `usage: sites <command> [options]    (sites <command> --help for each one)

Commands:
  serve                      run the service (what npm start runs)
  keys create --name NAME [--admin] [--grant GROUP:CAPS]… [--grant-site GROUP/SLUG:CAPS]… [--expires-in 720h | --expires-at DATE] [--json]
  keys list [--json]
  keys revoke --id ID
  publish DIR --site GROUP/SLUG [--title T] [--url URL] [--key KEY] [--include-dotfiles] [--preview NAME]
  previews list GROUP/SLUG | previews remove GROUP/SLUG NAME
  mcp connections [--json] [--all] | mcp revoke --id ID
  replay                     rebuild the read model from the event log
  project                    run only the projector (for scale-out setups)
  gc                         delete every stored file no retained revision references

Publishing (sites publish and sites previews, and the client the service hands out at /cli/sites.mjs):
  SITES_URL        the service to publish to (default http://localhost:8080, or the port
                   of SITES_LISTEN_ADDR)
  SITES_KEY        the API key to publish with (sites keys create makes one)
  SITES_CACHE_DIR  the digest cache: digests of each folder's last publish, so only
                   changed files are hashed again (default ~/.cache/sites; "off" disables it)
  Left out: dotfiles and dot-folders (except .well-known/ at the top) and node_modules/;
  DIR/.sitesignore (.gitignore syntax) and --include-dotfiles change that.

The other commands read the service's configuration (SITES_DATA_DIR, SITES_BASE_DOMAIN,
SITES_LISTEN_ADDR… see the configuration reference) and work whether or not the service
is running.
Exit status: 0 success, 1 failed operation (one line on stderr), 2 bad usage.`;

const CAPS = CAPABILITIES.join(', ');

const KEYS = `usage: sites keys create --name NAME [--admin] [--grant GROUP:CAPS]… [--grant-site GROUP/SLUG:CAPS]… [--expires-in 720h | --expires-at DATE] [--json]
       sites keys list [--json]
       sites keys revoke --id ID

API keys publish and manage sites (sites publish --key, SITES_KEY, Authorization: Bearer).
These commands open the service's data directly, so they work whether or not the service
is running, and a running service sees a change at once.

keys create      makes a key and prints its token once, alone on the last line
  --name NAME                   what the key is for (e.g. the CI job)
  --admin                       every capability on every site, and the management API
  --grant GROUP:CAPS            CAPS on every site under GROUP (docs: docs/app, docs/x/y and
                                the flat site docs); ":CAPS" grants them on all sites
  --grant-site GROUP/SLUG:CAPS  CAPS on that one site
                                CAPS is a comma-separated list of: ${CAPS}
  --expires-in 720h             the key stops working after this long (s, m, h, d)
  --expires-at DATE             … or at this date (2027-01-01); default: never
  --json                        print the key as JSON, the token in "key"
keys list        the keys that are not revoked (--json: as the API describes them)
keys revoke      --id ID: the key stops working on its next request

Exit status: 0 success, 1 failed operation, 2 bad usage.`;

const MCP = `usage: sites mcp connections [--json] [--all]
       sites mcp revoke --id ID

The MCP connections people approved (an assistant publishing through /mcp).
mcp connections  the active connections (--all: also revoked and lapsed ones)
mcp revoke       --id ID: its tokens stop working on the next call`;

const SINGLE: Record<string, string> = {
  serve: `usage: sites serve

Runs the service: the portal, the API, the ingest plane and every site, on
SITES_LISTEN_ADDR (default 127.0.0.1:8080) for SITES_BASE_DOMAIN (default localhost).
Configured by SITES_* environment variables (see the configuration reference).
Stops cleanly on SIGINT or SIGTERM.`,
  replay: `usage: sites replay

Rebuilds the read model from the event log. Stop the service first: a running service
holds the projector lease, and replay refuses to start while it does.`,
  project: `usage: sites project

Runs only the projector (and the background jobs) with no HTTP listener, for setups that
scale the HTTP part out over several processes sharing one store.`,
  gc: `usage: sites gc

Deletes every stored file that no retained revision (live, archived or in the trash)
references, and says how many it scanned and deleted.`,
};

/** The help of `command`, or undefined when it has none (then the overview is shown). */
export function commandHelp(command: string): string | undefined {
  if (command === 'keys') return KEYS;
  if (command === 'mcp') return MCP;
  return SINGLE[command];
}

/** Whether a command line asks for help: `--help` anywhere in it. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help');
