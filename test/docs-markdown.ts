import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's root, where the README is. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One page of the docs: its path from the root and its text. */
export interface DocPage {
  path: string;
  text: string;
}

/** A fenced code block: its language, its lines, the line number of its first line, and the comment just above it. */
export interface CodeBlock {
  lang: string;
  lines: string[];
  firstLine: number;
  marker: string | null;
}

/** The README and every page of docs/, in reading order: the README first, then the pages in the order it links them, then any others by name. */
export function readingOrder(): DocPage[] {
  const read = (path: string): DocPage => ({ path, text: readFileSync(ROOT + path, 'utf8') });
  const readme = read('README.md');
  const pages = readdirSync(ROOT + 'docs').filter((n) => n.endsWith('.md')).sort().map((n) => `docs/${n}`);
  const linked = [...readme.text.matchAll(/\]\((docs\/[^)#]+\.md)/g)].map((m) => m[1]!);
  const ordered = [...new Set([...linked.filter((p) => pages.includes(p)), ...pages])];
  return [readme, ...ordered.map(read)];
}

const NOT_OURS = new Set(['node_modules', '.git', 'coverage', 'dist', '.test-dist', 'data', 'artifacts']);

/** Every markdown page of the repository (the README, docs/, bench/, src/fake/, ...), in reading order first, then by path. */
export function allMarkdown(): DocPage[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(ROOT + dir)) {
      if (NOT_OURS.has(name)) continue;
      const path = dir ? `${dir}/${name}` : name;
      if (statSync(ROOT + path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk('');
  const ordered = readingOrder();
  const seen = new Set(ordered.map((p) => p.path));
  return [...ordered, ...found.sort().filter((p) => !seen.has(p)).map((path) => ({ path, text: readFileSync(ROOT + path, 'utf8') }))];
}

/** The fenced code blocks of a markdown text, each with the HTML comment on the line before its fence (`<!-- docs-examples: ... -->`), if any. */
export function codeBlocks(text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const above = lines[i - 1]?.trim() ?? '';
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    blocks.push({ lang: open[1]!, lines: lines.slice(start, end), firstLine: start + 1, marker: /^<!--.*-->$/.test(above) ? above : null });
    i = end;
  }
  return blocks;
}

/** The text outside fenced code blocks and inline code, where links are links (line structure kept). */
export function prose(text: string): string {
  const lines = text.split('\n');
  let inside = false;
  return lines
    .map((line) => {
      if (/^```/.test(line)) {
        inside = !inside;
        return '';
      }
      return inside ? '' : line.replace(/`[^`]*`/g, '``');
    })
    .join('\n');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` after repeats. */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let inside = false;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) inside = !inside;
    const m = inside ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}
