import { count, formatBytes } from './format.ts';

export type SummaryFacts = {
  readonly site: string;
  readonly url: string;
  readonly revision: string;
  /** The site already had exactly these files: the revision stayed, nothing was recorded. */
  readonly unchanged: boolean;
  readonly files: number;
  readonly newFiles: number;
  readonly uploadedBytes: number;
  readonly leftOut: readonly string[];
};

/**
 * A cell of the Markdown table: file names come from the published folder, so nothing in
 * them may end the cell or the code span, or turn into markup or a link.
 */
const code = (text: string) => `\`${text.replace(/[`|\u0000-\u001f\u007f]/g, '?')}\``;

/** The Markdown a publish appends to `$GITHUB_STEP_SUMMARY`: the job's page shows it. */
export function stepSummary(f: SummaryFacts): string {
  const shown = 20;
  const leftOut = f.leftOut.length
    ? `${f.leftOut.length.toLocaleString('en')}: ${f.leftOut.slice(0, shown).map(code).join(', ')}${f.leftOut.length > shown ? `, and ${f.leftOut.length - shown} more` : ''}`
    : 'none';
  return [
    `### Published ${code(f.site)}`,
    '',
    '| | |',
    '| --- | --- |',
    `| URL | ${f.url.replace(/[|\s]/g, encodeURIComponent)} |`,
    `| Revision | ${code(f.revision)}${f.unchanged ? ' (nothing changed: it was already live)' : ''} |`,
    `| Files | ${count(f.files, 'file')}: ${f.newFiles.toLocaleString('en')} new, ${formatBytes(f.uploadedBytes)} uploaded |`,
    `| Left out | ${leftOut} |`,
    '',
    '',
  ].join('\n');
}
