/**
 * The few charts the portal draws, in plain SVG and no charting library. Shapes are placed
 * in percentages of their box, so a bar is as wide as the screen allows without scaling its
 * text (labels stay HTML beside the bars), and colours come from classes in styles.css: the
 * CSP allows no style attributes.
 */
const NS = 'http://www.w3.org/2000/svg';

type SvgAttrs = Record<string, string | number | undefined>;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: SvgAttrs = {}, ...children: (SVGElement | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

const pct = (x: number) => `${Math.max(0, Math.min(100, x)).toFixed(3)}%`;

/** A piece of a bar; `label` is written inside it when there is room. */
export type Segment = { value: number; class: string; title: string; label?: string };

/**
 * A horizontal bar on a scale of `max`: one segment per value, side by side (a revision each,
 * or a single one). Each segment's `<title>` names it on hover; `label` is what a screen reader hears.
 */
export function bar(segments: Segment[], max: number, label: string, cls = ''): SVGSVGElement {
  const root = svg('svg', { class: `bar ${cls}`.trim(), role: 'img', 'aria-label': label, preserveAspectRatio: 'none' });
  root.append(svg('rect', { class: 'track', x: 0, y: 0, width: '100%', height: '100%', rx: 3 }));
  let x = 0;
  for (const s of segments) {
    const w = max > 0 ? (s.value / max) * 100 : 0;
    // a visible sliver even for a tiny revision, so every segment can be hovered
    const shown = s.value > 0 ? Math.max(w, 0.6) : 0;
    if (shown > 0) {
      const g = svg('g', { class: s.class }, svg('title', {}, s.title), svg('rect', { x: pct(x), y: 0, width: pct(shown), height: '100%' }));
      if (s.label && shown >= 9) g.append(svg('text', { x: pct(x + shown / 2), y: '50%', 'text-anchor': 'middle', 'dominant-baseline': 'central' }, s.label));
      root.append(g);
    }
    x += shown;
  }
  return root;
}

export type Column = { value: number; title: string; class?: string };

/** Columns over time (publishes per day): heights on a scale of the largest value, with a baseline. */
export function columns(values: Column[], label: string): SVGSVGElement {
  const root = svg('svg', { class: 'columns', role: 'img', 'aria-label': label, preserveAspectRatio: 'none' });
  const max = Math.max(1, ...values.map((v) => v.value));
  const slot = 100 / Math.max(1, values.length);
  const gap = Math.min(slot * 0.25, 1);
  values.forEach((v, i) => {
    // an invisible full-height hit area per day, so even an empty day answers a hover
    const g = svg('g', { class: v.class ?? '' }, svg('title', {}, v.title));
    g.append(svg('rect', { class: 'hit', x: pct(i * slot), y: 0, width: pct(slot), height: '100%' }));
    if (v.value > 0) {
      const hgt = (v.value / max) * 92;
      g.append(svg('rect', { class: 'col', x: pct(i * slot + gap / 2), y: pct(100 - hgt), width: pct(slot - gap), height: pct(hgt), rx: 1.5 }));
    }
    root.append(g);
  });
  root.append(svg('line', { class: 'baseline', x1: 0, x2: '100%', y1: '100%', y2: '100%' }));
  return root;
}
