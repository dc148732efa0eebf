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

function leftOutCell(leftOut: readonly string[]): string {
  const shown = 20;
  if (!leftOut.length) return 'none';
  return `${leftOut.length.toLocaleString('en')}: ${leftOut.slice(0, shown).map(code).join(', ')}${leftOut.length > shown ? `, and ${leftOut.length - shown} more` : ''}`;
}

/** The Markdown a publish appends to `$GITHUB_STEP_SUMMARY`: the job's page shows it. */
export function stepSummary(f: SummaryFacts): string {
  return [
    `### Published ${code(f.site)}`,
    '',
    '| | |',
    '| --- | --- |',
    `| URL | ${f.url.replace(/[|\s]/g, encodeURIComponent)} |`,
    `| Revision | ${code(f.revision)}${f.unchanged ? ' (nothing changed: it was already live)' : ''} |`,
    `| Files | ${count(f.files, 'file')}: ${f.newFiles.toLocaleString('en')} new, ${formatBytes(f.uploadedBytes)} uploaded |`,
    `| Left out | ${leftOutCell(f.leftOut)} |`,
    '',
    '',
  ].join('\n');
}

export type PreviewSummaryFacts = SummaryFacts & {
  readonly preview: string;
  readonly changes: { readonly added: number; readonly changed: number; readonly removed: number };
  readonly pages: readonly string[];
};

/** The step summary of a preview publish: its URL, the counts against live and the changed pages as links. */
export function previewStepSummary(f: PreviewSummaryFacts): string {
  const link = (url: string) => url.replace(/[|\s()<>[\]]/g, encodeURIComponent);
  return [
    `### Preview ${code(f.preview)} of ${code(f.site)}`,
    '',
    '| | |',
    '| --- | --- |',
    `| URL | ${link(f.url)} |`,
    `| Revision | ${code(f.revision)}${f.unchanged ? ' (nothing changed since the last push)' : ''} |`,
    `| Against live | ${count(f.changes.added, 'file')} added, ${f.changes.changed.toLocaleString('en')} changed, ${f.changes.removed.toLocaleString('en')} removed |`,
    `| Files | ${count(f.files, 'file')}: ${f.newFiles.toLocaleString('en')} new, ${formatBytes(f.uploadedBytes)} uploaded |`,
    `| Left out | ${leftOutCell(f.leftOut)} |`,
    '',
    ...(f.pages.length ? ['Changed pages:', '', ...f.pages.map((p) => `- ${link(p)}`), ''] : []),
    '',
  ].join('\n');
}
