/** One line of the benchmark table: a measured figure, its reference and their ratio. */
export type Row = {
  readonly section: string;
  readonly what: string;
  readonly value: string;
  readonly reference: string;
  /** value / reference, measured in the same run. */
  readonly ratio?: number;
  readonly target?: string;
  /** Whether the target is met (undefined: no target). */
  readonly ok?: boolean;
};

/** The rows as a Markdown table. */
export function markdownTable(rows: readonly Row[]): string {
  const lines = ['| Area | Measure | Service | Reference | Ratio | Target |', '| --- | --- | --- | --- | --- | --- |'];
  for (const r of rows) {
    const ratio = r.ratio === undefined || !Number.isFinite(r.ratio) ? '–' : `${r.ratio < 0.1 ? r.ratio.toFixed(3) : r.ratio.toFixed(2)}×`;
    const target = r.target ? `${r.target} ${r.ok === undefined ? '' : r.ok ? '✅' : '❌'}`.trim() : '';
    lines.push(`| ${r.section} | ${r.what} | ${r.value} | ${r.reference} | ${ratio} | ${target} |`);
  }
  return lines.join('\n');
}
