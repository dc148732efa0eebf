import { appendFileSync } from 'node:fs';
import { parseFlags, parsePreviewName, parseSite } from './args.ts';
import type { Preview } from './deploy.ts';
import { ClientUsageError } from './errors.ts';
import { githubTarget, keepComment, removedComment } from './github.ts';
import { expectJson, send, unreachable, type Answer } from './http.ts';
import { serviceBase, type PublishEnv } from './publish.ts';
import { PREVIEWS_USAGE, previewsHelp } from './usage.ts';

/**
 * `previews list SITE` and `previews remove SITE NAME` (spec §14): what a pull request's
 * preview job needs besides publishing one. Both take the key and the service as
 * `publish` does; a key with only the `preview` capability is enough.
 */
export async function previewsCommand(argv: readonly string[], io: PublishEnv): Promise<number> {
  const { positionals, flags } = parseFlags(argv, ['url', 'key', 'pull-request'], ['json', 'if-exists', 'github-comment']);
  if (flags.has('help')) {
    io.out(previewsHelp(io.program, io.defaultUrl));
    return 0;
  }
  const [action, siteArg, name, ...extra] = positionals;
  const usage = () => new ClientUsageError(`usage: ${io.program} ${PREVIEWS_USAGE.split('\n')[0]} | ${PREVIEWS_USAGE.split('\n')[1]!.trim()}`);
  if (action !== 'list' && action !== 'remove') throw usage();
  if (!siteArg || extra.length || (action === 'list' ? name !== undefined : name === undefined)) throw usage();
  const site = parseSite(siteArg, 'the site');
  const path = [site.group, site.slug].filter(Boolean).join('/');
  if (action === 'list' && ['if-exists', 'github-comment', 'pull-request'].some((f) => flags.has(f))) throw new ClientUsageError('--if-exists, --github-comment and --pull-request go with previews remove');
  if (action === 'remove' && flags.has('json')) throw new ClientUsageError('--json goes with previews list');
  if (!flags.has('github-comment') && flags.has('pull-request')) throw new ClientUsageError('--pull-request goes with --github-comment');
  const preview = action === 'remove' ? parsePreviewName(name!, site.slug) : undefined;
  const github = flags.has('github-comment') ? githubTarget(io.env, flags.get('pull-request')) : undefined;
  const key = flags.get('key') ?? io.env.SITES_KEY;
  if (!key) throw new ClientUsageError('give --key KEY or set SITES_KEY');
  const base = serviceBase(flags, io);

  const call = async (method: string, url: string): Promise<Answer> => {
    try {
      return await send(new URL(url, base), method, { Authorization: `Bearer ${key}` });
    } catch (err) {
      throw unreachable(err, base);
    }
  };

  if (action === 'list') {
    const { previews } = expectJson<{ previews: Preview[] }>(await call('GET', `/ingest/sites/${path}/previews`), 'listing the previews', base);
    if (flags.has('json')) io.out(JSON.stringify({ previews }, null, 2));
    else if (!previews.length) io.out(`no previews of ${path}`);
    else io.out(previewTable(previews));
    return 0;
  }

  const answer = await call('DELETE', `/ingest/sites/${path}/previews/${preview}`);
  const gone = answer.status === 404 && flags.has('if-exists');
  // Gone already: a pull request closed after its preview expired, or whose build never published one.
  if (!gone && answer.status !== 204) expectJson(answer, `removing the preview ${preview}`, base);
  io.out(gone ? `no preview ${preview} of ${path} to remove` : `removed the preview ${preview} of ${path}`);
  if (io.env.GITHUB_STEP_SUMMARY) {
    appendFileSync(io.env.GITHUB_STEP_SUMMARY, `### Preview \`${preview}\` of \`${path}\`\n\n${gone ? 'Nothing to remove: it had expired or was never published.' : 'Removed.'}\n\n`);
  }
  if (github) {
    try {
      const done = await keepComment(github, path, removedComment(path, preview!), false);
      if (done.action !== 'none') io.out(`${done.action} the comment on pull request #${github.pullRequest}${done.url ? `: ${done.url}` : ''}`);
    } catch (err) {
      io.warn(`the pull request's comment was not updated: ${(err as Error).message}`);
    }
  }
  return 0;
}

/** One line a preview: name, URL, when it was last published, when it expires and by whom. */
function previewTable(previews: readonly Preview[]): string {
  const when = (iso: string | undefined) => (iso ? iso.replace(/:\d\d(\.\d+)?Z$/, 'Z').replace('T', ' ') : '-');
  const rows = [['NAME', 'URL', 'UPDATED', 'EXPIRES', 'BY'], ...previews.map((p) => [p.name, p.url, when(p.updated_at), when(p.expires_at), p.created_by ? `${p.created_by.kind} ${p.created_by.name}` : '-'])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
