import { appendFileSync, realpathSync } from 'node:fs';
import { parseFlags, parsePreviewName, parseSite } from './args.ts';
import { deploy, type PreviewResult } from './deploy.ts';
import { cacheDir, openDigestCache } from './digest-cache.ts';
import { ClientUsageError } from './errors.ts';
import { siteFiles } from './folder.ts';
import { count, formatBytes } from './format.ts';
import { IGNORE_FILE } from './leave-out.ts';
import { githubTarget, keepComment, previewComment, type GitHubTarget } from './github.ts';
import { previewStepSummary, stepSummary } from './step-summary.ts';
import { PUBLISH_USAGE, publishHelp } from './usage.ts';

export { PUBLISH_USAGE } from './usage.ts';

export type PublishEnv = {
  readonly env: NodeJS.ProcessEnv;
  /** How the command was started, for the help (`sites`, `node sites.mjs`). */
  readonly program: string;
  /** Where the service is when neither --url nor SITES_URL says: the local service, or where this client was downloaded from. */
  readonly defaultUrl: string;
  readonly out: (line: string) => void;
  /** A `sites: …` line on stderr that is not a failure. */
  readonly note: (line: string) => void;
  readonly warn: (line: string) => void;
};

function serviceUrl(raw: string, from: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ClientUsageError(`${from} ${JSON.stringify(raw)} is not a URL (e.g. https://sites.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClientUsageError(`${from} ${JSON.stringify(raw)}: only http:// and https:// URLs`);
  return url;
}

/** `left out 2 files and 1 folder: .DS_Store, .env, .git/ (…)`: what was not sent, and why. */
function leftOutLine(leftOut: readonly string[], hasIgnoreFile: boolean, program: string): string {
  const folders = leftOut.filter((n) => n.endsWith('/')).length;
  const files = leftOut.length - folders;
  const what = [files ? count(files, 'file') : '', folders ? count(folders, 'folder') : ''].filter(Boolean).join(' and ');
  const shown = 5;
  const names = leftOut.slice(0, shown).join(', ') + (leftOut.length > shown ? `, and ${leftOut.length - shown} more` : '');
  const why = `${hasIgnoreFile ? `dotfiles, node_modules/ and what ${IGNORE_FILE} lists` : 'dotfiles and node_modules/'} are not published; ${program} publish --help says how to change it`;
  return `left out ${what}: ${names} (${why})`;
}

/**
 * `publish DIR --site GROUP/SLUG`: hashes the folder, uploads only what the site does not
 * have yet (spec §10), publishes, and says so in one line. On GitHub Actions it also
 * writes the `url` and `revision` outputs and a step summary.
 */
export async function publishCommand(argv: readonly string[], io: PublishEnv): Promise<number> {
  const { positionals, flags } = parseFlags(argv, ['site', 'title', 'url', 'key', 'preview', 'pull-request'], ['include-dotfiles', 'github-comment']);
  if (flags.has('help')) {
    io.out(publishHelp(io.program, io.defaultUrl));
    return 0;
  }
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new ClientUsageError(`usage: ${io.program} ${PUBLISH_USAGE}`);
  const siteArg = flags.get('site');
  if (!siteArg) throw new ClientUsageError('--site GROUP/SLUG is required');
  const site = parseSite(siteArg);
  const preview = flags.has('preview') ? parsePreviewName(flags.get('preview')!, site.slug) : undefined;
  if (!preview && (flags.has('github-comment') || flags.has('pull-request'))) throw new ClientUsageError('--github-comment and --pull-request go with --preview NAME');
  // Checked before anything is hashed or sent: a job missing its token fails at once.
  const github = flags.has('github-comment') ? githubTarget(io.env, flags.get('pull-request')) : undefined;
  if (!github && flags.has('pull-request')) throw new ClientUsageError('--pull-request goes with --github-comment');
  const key = flags.get('key') ?? io.env.SITES_KEY;
  if (!key) throw new ClientUsageError('give --key KEY or set SITES_KEY');
  const base = serviceBase(flags, io);
  const title = flags.get('title');

  const { files, leftOut, hasIgnoreFile } = await siteFiles(dir, { includeDotfiles: flags.has('include-dotfiles'), warn: io.warn });
  leftOut.sort();
  // Said before anything is sent, so it is in the log even when the publish fails.
  if (leftOut.length) io.note(leftOutLine(leftOut, hasIgnoreFile, io.program));
  const cache = openDigestCache(cacheDir(io.env), realpathSync(dir));
  const meta = { ...site, ...(title ? { title } : {}) };
  const path = [site.group, site.slug].filter(Boolean).join('/');
  if (preview) {
    const outcome = await deploy({ base, key, meta, files, cache, preview });
    return previewPublished(io, { path, files: files.length, leftOut, github, ...outcome });
  }
  const { result, newFiles, uploadedBytes } = await deploy({ base, key, meta, files, cache });
  // A re-run CI job publishes what is already live: the service records nothing, and says so.
  const revision = `revision ${result.revision}${result.unchanged ? ', nothing changed' : ''}`;
  io.out(`published ${count(files.length, 'file')} (${newFiles.toLocaleString('en')} new, ${formatBytes(uploadedBytes)} uploaded) to ${result.url} (${revision})`);
  if (io.env.GITHUB_OUTPUT) appendFileSync(io.env.GITHUB_OUTPUT, `url=${result.url}\nrevision=${result.revision}\n`);
  if (io.env.GITHUB_STEP_SUMMARY) {
    appendFileSync(io.env.GITHUB_STEP_SUMMARY, stepSummary({ site: path, url: result.url, revision: result.revision, unchanged: result.unchanged === true, files: files.length, newFiles, uploadedBytes, leftOut }));
  }
  return 0;
}

/** The service: --url, else SITES_URL, else the default (the local service, or where the client came from). */
export function serviceBase(flags: Map<string, string>, io: Pick<PublishEnv, 'env' | 'defaultUrl'>): URL {
  if (flags.has('url')) return serviceUrl(flags.get('url')!, '--url');
  if (io.env.SITES_URL) return serviceUrl(io.env.SITES_URL, 'SITES_URL');
  return serviceUrl(io.defaultUrl, 'the default URL');
}

type PreviewFacts = {
  readonly path: string;
  readonly files: number;
  readonly leftOut: readonly string[];
  readonly github: GitHubTarget | undefined;
  readonly result: PreviewResult;
  readonly newFiles: number;
  readonly uploadedBytes: number;
};

/**
 * Says what a preview publish did: the URL, the counts against live and the changed pages
 * (what a reviewer opens first); on GitHub Actions the outputs, the step summary and, with
 * --github-comment, the pull request's comment. A comment that cannot be written is a
 * warning, not a failure: the preview is up, and the step summary links to it.
 */
async function previewPublished(io: PublishEnv, f: PreviewFacts): Promise<number> {
  const { preview, changes, pages } = f.result;
  const revision = `revision ${preview.revision}${f.result.unchanged ? ', nothing changed' : ''}`;
  io.out(`published preview ${preview.name} of ${f.path}: ${count(f.files, 'file')} (${f.newFiles.toLocaleString('en')} new, ${formatBytes(f.uploadedBytes)} uploaded) to ${preview.url} (${revision})`);
  io.out(`against live: ${count(changes.added, 'file')} added, ${changes.changed.toLocaleString('en')} changed, ${changes.removed.toLocaleString('en')} removed`);
  if (pages.length) io.out(`changed pages:\n${pages.map((p) => `  ${p}`).join('\n')}`);
  if (io.env.GITHUB_OUTPUT) appendFileSync(io.env.GITHUB_OUTPUT, `url=${preview.url}\nrevision=${preview.revision}\n`);
  if (io.env.GITHUB_STEP_SUMMARY) {
    appendFileSync(
      io.env.GITHUB_STEP_SUMMARY,
      previewStepSummary({ site: f.path, preview: preview.name, url: preview.url, revision: preview.revision, unchanged: f.result.unchanged === true, files: f.files, newFiles: f.newFiles, uploadedBytes: f.uploadedBytes, leftOut: f.leftOut, changes, pages }),
    );
  }
  if (f.github) {
    try {
      const done = await keepComment(f.github, f.path, previewComment({ site: f.path, result: f.result, ...(f.github.commit ? { commit: f.github.commit } : {}) }));
      io.out(`${done.action} the comment on pull request #${f.github.pullRequest}${done.url ? `: ${done.url}` : ''}`);
    } catch (err) {
      io.warn(`the pull request's comment was not updated: ${(err as Error).message}`);
    }
  }
  return 0;
}
