/**
 * A deliberately small YAML reader for the CI recipes in `deploy/` (no YAML parser is
 * installed, and the recipes do not need one). It reads exactly this subset and throws on
 * anything else, so a recipe that grows beyond it fails its test instead of being misread:
 *
 * - block mappings (`key: value`, `key:` + a nested block) with plain keys;
 * - block sequences (`- value`, `- key: value` starting a mapping, `-` + a nested block),
 *   also at the same indentation as their parent key (`steps:\n- run: …`);
 * - scalars: plain (kept as strings, a ` #` starts a comment), 'single' and "double"
 *   quoted (on one line), flow sequences of such scalars (`[main]`, `[""]`) and the empty
 *   flow mapping `{}` (`permissions: {}`);
 * - literal block scalars `|` and `|-` (content kept verbatim, never comment-stripped);
 * - whole-line comments and blank lines.
 *
 * Refused: anchors, aliases, tags, flow mappings, folded (`>`) and multi-line plain or
 * quoted scalars, several documents, tabs for indentation.
 */
export type Yaml = string | Yaml[] | { [key: string]: Yaml };

type Line = { indent: number; text: string; no: number };

export function parseYaml(source: string): Yaml {
  const raw = source.replace(/\r\n/g, '\n').split('\n');
  const p = new Parser(raw);
  const value = p.block(0);
  p.skipBlank();
  if (p.i < raw.length) p.fail(p.i, 'unexpected content (indentation?)');
  return value;
}

class Parser {
  i = 0;
  constructor(private readonly raw: string[]) {}

  fail(index: number, why: string): never {
    throw new Error(`mini-yaml: line ${index + 1}: ${why}: ${JSON.stringify(this.raw[index] ?? '')}`);
  }

  /** Moves past blank and comment-only lines. */
  skipBlank(): void {
    while (this.i < this.raw.length && /^\s*(#.*)?$/.test(this.raw[this.i]!)) this.i++;
  }

  peek(): Line | undefined {
    this.skipBlank();
    if (this.i >= this.raw.length) return undefined;
    const text = this.raw[this.i]!;
    if (/^ *\t/.test(text)) this.fail(this.i, 'tab in indentation');
    if (text === '---' || text === '...') this.fail(this.i, 'document markers are not supported');
    const indent = text.length - text.trimStart().length;
    return { indent, text: text.trimStart(), no: this.i };
  }

  /** A block (mapping or sequence) whose first line is indented at least `min`. */
  block(min: number): Yaml {
    const first = this.peek();
    if (!first || first.indent < min) return '';
    return isSeqItem(first.text) ? this.sequence(first.indent) : this.mapping(first.indent);
  }

  sequence(indent: number): Yaml[] {
    const out: Yaml[] = [];
    for (;;) {
      const line = this.peek();
      if (!line || line.indent !== indent || !isSeqItem(line.text)) return out;
      const rest = line.text === '-' ? '' : line.text.slice(2);
      const restTrim = rest.trimStart();
      const inner = indent + 2 + (rest.length - restTrim.length);
      if (restTrim === '' || restTrim.startsWith('#')) {
        this.i++;
        out.push(this.block(indent + 1));
      } else if (keyOf(restTrim)) {
        // `- key: value` opens a mapping whose keys sit where `key` starts.
        this.raw[this.i] = ' '.repeat(inner) + restTrim;
        out.push(this.mapping(inner));
      } else {
        this.i++;
        out.push(this.scalarOrBlockScalar(restTrim, line.no, indent));
      }
    }
  }

  mapping(indent: number): { [key: string]: Yaml } {
    const out: { [key: string]: Yaml } = {};
    for (;;) {
      const line = this.peek();
      if (!line || line.indent < indent) return out;
      if (line.indent > indent) this.fail(line.no, 'unexpected indentation');
      if (isSeqItem(line.text)) return out; // a sequence at the parent key's indentation ends here
      const kv = keyOf(line.text);
      if (!kv) this.fail(line.no, 'expected `key: value`');
      if (Object.hasOwn(out, kv.key)) this.fail(line.no, `duplicate key ${kv.key}`);
      this.i++;
      const value = kv.value.trim();
      if (value === '' || value.startsWith('#')) {
        const next = this.peek();
        if (next && (next.indent > indent || (next.indent === indent && isSeqItem(next.text)))) {
          out[kv.key] = next.indent > indent ? this.block(indent + 1) : this.sequence(indent);
        } else out[kv.key] = '';
      } else {
        out[kv.key] = this.scalarOrBlockScalar(value, line.no, indent);
      }
    }
  }

  scalarOrBlockScalar(value: string, no: number, parentIndent: number): Yaml {
    const header = /^\|(-?)\s*(#.*)?$/.exec(value);
    if (header) return this.literal(parentIndent, header[1] === '-');
    if (/^[>&*!%@`{]/.test(value) && !/^\{\s*\}\s*(#.*)?$/.test(value)) this.fail(no, 'unsupported YAML feature');
    const scalar = parseScalar(value, () => this.fail(no, 'bad scalar'));
    const next = this.peek();
    if (next && next.indent > parentIndent && !isSeqItem(next.text) && !keyOf(next.text)) {
      this.fail(next.no, 'multi-line scalars are not supported');
    }
    return scalar;
  }

  /** A literal block scalar: every following line indented deeper than the parent. */
  literal(parentIndent: number, strip: boolean): string {
    const lines: string[] = [];
    let contentIndent = -1;
    while (this.i < this.raw.length) {
      const text = this.raw[this.i]!;
      if (text.trim() === '') {
        lines.push('');
        this.i++;
        continue;
      }
      const indent = text.length - text.trimStart().length;
      if (indent <= parentIndent) break;
      if (contentIndent < 0) contentIndent = indent;
      if (indent < contentIndent) this.fail(this.i, 'less indented line inside a block scalar');
      lines.push(text.slice(contentIndent));
      this.i++;
    }
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n') + (strip || lines.length === 0 ? '' : '\n');
  }
}

function isSeqItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function keyOf(text: string): { key: string; value: string } | undefined {
  const m = /^([A-Za-z0-9_.\/-]+):(?:\s+(.*))?$/.exec(text);
  return m ? { key: m[1]!, value: m[2] ?? '' } : undefined;
}

function parseScalar(value: string, fail: () => never): Yaml {
  if (/^\{\s*\}\s*(#.*)?$/.test(value)) return {};
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0 || !/^\s*(#.*)?$/.test(value.slice(close + 1))) fail();
    const inner = value.slice(1, close).trim();
    if (inner === '') return [];
    return splitFlow(inner, fail).map((item) => parseScalar(item.trim(), fail) as string);
  }
  if (value.startsWith('"') || value.startsWith("'")) {
    const { text, rest } = quoted(value, fail);
    if (!/^\s*(#.*)?$/.test(rest)) fail();
    return text;
  }
  const hash = value.search(/\s#/);
  const plain = (hash >= 0 ? value.slice(0, hash) : value).trim();
  if (/: |:$/.test(plain) || /^[\[\]{},]/.test(plain)) fail();
  return plain;
}

function splitFlow(inner: string, fail: () => never): string[] {
  const items: string[] = [];
  let rest = inner;
  while (rest.length) {
    rest = rest.trimStart();
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const q = quoted(rest, fail);
      items.push(rest.slice(0, rest.length - q.rest.length));
      rest = q.rest.trimStart();
    } else {
      const comma = rest.indexOf(',');
      items.push(comma < 0 ? rest : rest.slice(0, comma));
      rest = comma < 0 ? '' : rest.slice(comma);
    }
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.trim() !== '') fail();
  }
  return items;
}

function quoted(value: string, fail: () => never): { text: string; rest: string } {
  const q = value[0]!;
  let text = '';
  for (let i = 1; i < value.length; i++) {
    const c = value[i]!;
    if (q === "'" && c === "'") {
      if (value[i + 1] === "'") {
        text += "'";
        i++;
        continue;
      }
      return { text, rest: value.slice(i + 1) };
    }
    if (q === '"' && c === '\\') {
      const e = value[++i];
      const map: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/' };
      if (e === undefined || !(e in map)) fail();
      text += map[e];
      continue;
    }
    if (q === '"' && c === '"') return { text, rest: value.slice(i + 1) };
    text += c;
  }
  return fail();
}
