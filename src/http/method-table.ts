/** One route of the table: a method and Hono path pattern. */
export interface MethodRoute {
  method: string;
  pattern: string;
}

interface Shape {
  /** The pattern's segments, a parameter as null. */
  segments: (string | null)[];
  /** The pattern as first added (its parameter names are the ones Hono sees). */
  pattern: string;
  methods: Set<string>;
}

const segmentsOf = (path: string) => path.split('/').slice(1);

/** True when `a`, at the first segment where the two differ in kind, has the literal one. */
function moreLiteral(a: Shape, b: Shape): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    if ((a.segments[i] === null) !== (b.segments[i] === null)) return a.segments[i] !== null;
  }
  return false;
}

/** True when `wide` matches every path `narrow` matches. */
function covers(wide: Shape, narrow: Shape): boolean {
  return wide.segments.length === narrow.segments.length && wide.segments.every((w, i) => (w === null ? narrow.segments[i] !== '' : w === narrow.segments[i]));
}

/**
 * The methods of every mounted path pattern, for 405 answers: which methods a request's path has,
 * taken from its most literal matching pattern (`/api/url/add` over `/api/url/:id`). Patterns with
 * wildcards, optional or constrained parameters are left out (none is mounted); middleware
 * (method ALL) says nothing about a path's methods.
 */
export class MethodTable {
  readonly #shapes = new Map<string, Shape>();

  /** Records that `pattern` answers `method`. */
  add(method: string, pattern: string): void {
    if (method === 'ALL' || /[*?{]/.test(pattern)) return;
    const segments = segmentsOf(pattern).map((s) => (s.startsWith(':') ? null : s));
    const key = segments.map((s) => s ?? ':').join('/');
    let shape = this.#shapes.get(key);
    if (!shape) this.#shapes.set(key, (shape = { segments, pattern, methods: new Set() }));
    shape.methods.add(method);
  }

  /**
   * The Allow list (sorted; HEAD wherever GET is) when `path` is known but its most literal
   * pattern does not answer `method`; null when it does, or when no pattern matches the path.
   */
  wrongMethod(method: string, path: string): string[] | null {
    const segments = segmentsOf(path);
    let best: Shape | null = null;
    for (const shape of this.#shapes.values()) {
      if (shape.segments.length !== segments.length) continue;
      if (!shape.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) continue;
      if (!best || moreLiteral(shape, best)) best = shape;
    }
    if (!best || best.methods.has(method === 'HEAD' ? 'GET' : method)) return null;
    const allow = new Set(best.methods);
    if (allow.has('GET')) allow.add('HEAD');
    return [...allow].sort();
  }

  /**
   * The (method, pattern) pairs Hono would hand to a less literal pattern of that method
   * (`GET /api/url/add` to `GET /api/url/:id`): routes to answer 405 from, mounted before the rest.
   */
  shadowed(): MethodRoute[] {
    const out: MethodRoute[] = [];
    // Only a pattern of as many segments covers another: compared within those groups (a server start
    // compares every pair of the few hundred patterns otherwise).
    const byLength = new Map<number, Shape[]>();
    for (const shape of this.#shapes.values()) {
      const group = byLength.get(shape.segments.length);
      if (group) group.push(shape);
      else byLength.set(shape.segments.length, [shape]);
    }
    for (const shapes of byLength.values()) {
      for (const narrow of shapes) {
        const missing = new Set<string>();
        for (const wide of shapes) {
          if (wide === narrow || !covers(wide, narrow)) continue;
          for (const m of wide.methods) if (!narrow.methods.has(m)) missing.add(m);
        }
        for (const method of missing) out.push({ method, pattern: narrow.pattern });
      }
    }
    return out;
  }
}
