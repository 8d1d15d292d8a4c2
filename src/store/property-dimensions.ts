import type { DayCounts, Labels } from './store.ts';

/**
 * Custom event properties are counted as one dimension per (event, property) pair, named
 * `event_property:` + the JSON of `[event, property]`, whose labels are the property's values. Each
 * such dimension holds at most maxLabels values, as every dimension does; how many of them a
 * subject's day holds is bounded here, in the buffer and in both backends alike: visitors choose
 * the names, and each new pair would be a new dimension.
 */
export const PROPERTY_DIMENSION_PREFIX = 'event_property:';

/** (Event, property) pairs a subject's day keeps apart at most; later pairs count under PROPERTY_OVERFLOW_DIMENSION. */
export const MAX_PROPERTY_DIMENSIONS = 100;

/** The dimension of the pairs past MAX_PROPERTY_DIMENSIONS: event `(other)`, property `(other)`. */
export const PROPERTY_OVERFLOW_DIMENSION = propertyDimension('(other)', '(other)');

/** The dimension counting the values of `property` on `event`. */
export function propertyDimension(event: string, property: string): string {
  return PROPERTY_DIMENSION_PREFIX + JSON.stringify([event, property]);
}

/** The event and property a dimension counts, or null when it is no property dimension. */
export function propertyOf(dimension: string): { event: string; property: string } | null {
  if (!dimension.startsWith(PROPERTY_DIMENSION_PREFIX)) return null;
  try {
    const pair: unknown = JSON.parse(dimension.slice(PROPERTY_DIMENSION_PREFIX.length));
    if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string') return { event: pair[0], property: pair[1] };
  } catch {
    // not ours: a dimension that merely starts like one
  }
  return null;
}

/** Whether `name` is a property dimension (PROPERTY_OVERFLOW_DIMENSION included). */
export const isPropertyDimension = (name: string): boolean => name.startsWith(PROPERTY_DIMENSION_PREFIX);

/** The property dimensions `counts` holds. */
export function propertyDimensionsOf(counts: DayCounts): Set<string> {
  const out = new Set<string>();
  for (const name in counts) if (isPropertyDimension(name)) out.add(name);
  return out;
}

/**
 * Where a property dimension is counted in a day that holds `held` (updated in place): under its
 * own name when the day has it or has room for it, else under PROPERTY_OVERFLOW_DIMENSION.
 */
export function admitPropertyDimension(name: string, held: Set<string>): string {
  if (held.has(name)) return name;
  const at = held.size < MAX_PROPERTY_DIMENSIONS ? name : PROPERTY_OVERFLOW_DIMENSION;
  held.add(at);
  return at;
}

/**
 * `delta` with its property dimensions placed as admitPropertyDimension says, given those the day
 * holds (`held`, updated): the same object when every one has its own place, else a copy whose
 * pairs past the cap are merged into PROPERTY_OVERFLOW_DIMENSION.
 */
export function capPropertyDimensions(delta: DayCounts, held: Set<string>): DayCounts {
  let out: DayCounts | null = null;
  for (const name in delta) {
    if (!isPropertyDimension(name)) continue;
    const at = admitPropertyDimension(name, held);
    if (at === name) continue;
    out ??= Object.assign(Object.create(null) as DayCounts, delta);
    const moved = delta[name] as Labels;
    delete out[name];
    const into = (out[at] = Object.assign(Object.create(null) as Labels, out[at] as Labels | undefined));
    for (const label in moved) into[label] = (into[label] ?? 0) + moved[label]!;
  }
  return out ?? delta;
}
