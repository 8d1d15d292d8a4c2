import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** Every module of src/ and the modules of src/ it imports (type imports too: a circle of types is still a knot in the design). */
function importGraph(): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if ((path.endsWith('.ts') && !path.endsWith('.d.ts')) || path.endsWith('.tsx')) files.push(path);
    }
  };
  walk(SRC);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm), ...text.matchAll(/import\('(\.[^']+)'\)/g)].map((m) => resolve(dirname(file), m[1]!));
    graph.set(file, targets.filter((t) => known.has(t)));
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan): each one is an import circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(relative(SRC, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the circle finder sees a circle of three', () => {
  const g = new Map([[`${SRC}/a.ts`, [`${SRC}/b.ts`]], [`${SRC}/b.ts`, [`${SRC}/c.ts`]], [`${SRC}/c.ts`, [`${SRC}/a.ts`]], [`${SRC}/d.ts`, [`${SRC}/a.ts`]]]);
  assert.deepEqual(circles(g), [['a.ts', 'b.ts', 'c.ts']]);
});

test('no module of src/ imports itself through others (type imports included)', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, `read the whole tree (${graph.size} modules)`);
  assert.deepEqual(circles(graph), []);
});

// Where code outside src/store/ may reach into one backend, and why (anything else goes through the interface).
const SEAM_EXCEPTIONS: Record<string, string> = {
  'fixtures/read.ts': 'fixtures directories are collection files: it reads them with the file store reader',
  'fake/index.ts': 'the fake is always in memory: its public store view reads memory synchronously',
  'demo/build.ts': 'the demo is always in memory',
  'main.ts': "the file store's start errors (a damaged file, a held lock) are printed as one line",
  'cli/migrate.ts': 'the migrate command is PostgreSQL-only',
};

test('the storage seam: outside src/store/ nothing imports the driver or an adapter, but the listed exceptions', () => {
  const offenders: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = relative(SRC, file);
    if (from.startsWith('store/') || SEAM_EXCEPTIONS[from]) continue;
    const text = readFileSync(file, 'utf8');
    if (/from\s+'pg'|import\('pg'\)/.test(text)) offenders.push(`${from} imports pg`);
    for (const t of targets) {
      const to = relative(SRC, t);
      if (to.startsWith('store/file/') || to.startsWith('store/postgres/')) offenders.push(`${from} imports ${to}`);
    }
  }
  assert.deepEqual(offenders, []);
  // SQL stays in the PostgreSQL adapter too.
  const sql: string[] = [];
  for (const file of importGraph().keys()) {
    const from = relative(SRC, file);
    if (from.startsWith('store/postgres/')) continue;
    if (/\b(SELECT\s+[\w*]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/.test(readFileSync(file, 'utf8'))) sql.push(from);
  }
  assert.deepEqual(sql, []);
});
