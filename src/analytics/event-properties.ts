import * as v from 'valibot';
import type { StatRow } from './metrics.ts';
import { sumDimension } from '../stats/counts.ts';
import type { DayCounts } from '../stats/counts.ts';
import { propertyDimension, propertyOf } from '../store/property-dimensions.ts';

/** Properties one custom event may carry. */
export const MAX_EVENT_PROPERTIES = 30;
/** Longest property name, characters. */
export const PROPERTY_NAME_MAX = 100;
/** Longest property value (as text), characters. */
export const PROPERTY_VALUE_MAX = 500;

/**
 * The `properties` of a custom event: a flat object of at most MAX_EVENT_PROPERTIES names (1 to
 * PROPERTY_NAME_MAX characters) to strings (up to PROPERTY_VALUE_MAX), finite numbers or booleans.
 */
export const EventProperties = v.pipe(
  v.record(
    v.pipe(v.string(), v.minLength(1, 'A property name cannot be empty.'), v.maxLength(PROPERTY_NAME_MAX, `A property name must be at most ${PROPERTY_NAME_MAX} characters.`)),
    v.union(
      [v.pipe(v.string(), v.maxLength(PROPERTY_VALUE_MAX, `A property value must be at most ${PROPERTY_VALUE_MAX} characters.`)), v.pipe(v.number(), v.finite()), v.boolean()],
      'A property value must be a string, a number or a boolean.',
    ),
    'The event properties must be an object of names and values.',
  ),
  v.maxEntries(MAX_EVENT_PROPERTIES, `An event may carry at most ${MAX_EVENT_PROPERTIES} properties.`),
);

// JSON.parse makes these own keys, but Valibot's record leaves them out (they would reach the
// prototype), and it takes an array for an object of its indexes: both refused rather than
// counted as something else.
const RESERVED = ['__proto__', 'constructor', 'prototype'];

/** What is wrong with `raw`, the properties as sent, that the schema lets through; null when nothing. */
export function propertiesProblem(raw: unknown): string | null {
  if (Array.isArray(raw)) return 'The event properties must be an object of names and values.';
  if (!raw || typeof raw !== 'object') return null;
  const name = RESERVED.find((k) => Object.hasOwn(raw, k));
  return name === undefined ? null : `"${name}" cannot be a property name.`;
}

/** The labels a custom event's properties add: one per property, in the dimension of (event, property). */
export function propertyLabels(event: string, properties: Readonly<Record<string, string | number | boolean>> | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(properties ?? {})) out[propertyDimension(event, name)] = String(value);
  return out;
}

/**
 * The rows of `event_property` over some days: with `property`, that property's values and how
 * many times each came with the event; without, the event's property names and how many times
 * each came. Unsorted.
 */
export function propertyRows(days: readonly { day: string; counts: DayCounts }[], event: string, property: string | undefined): StatRow[] {
  // Only the event's dimensions are read, day by day: merging whole days summed every other dimension too.
  if (property !== undefined) return [...sumDimension(days, propertyDimension(event, property))].map(([value, count]) => ({ value, count }));
  const byName = new Map<string, number>();
  for (const d of days) {
    for (const [name, labels] of Object.entries(d.counts)) {
      const pair = typeof labels === 'object' ? propertyOf(name) : null;
      if (pair?.event === event) byName.set(pair.property, (byName.get(pair.property) ?? 0) + Object.values(labels as Record<string, number>).reduce((a, b) => a + b, 0));
    }
  }
  return [...byName].map(([value, count]) => ({ value, count }));
}

/** Every (event, property, value) of a range's summed counts, for exports: count descending, then by event, property and value. */
export function allPropertyRows(sum: DayCounts): { event: string; property: string; value: string; count: number }[] {
  const rows: { event: string; property: string; value: string; count: number }[] = [];
  for (const [name, labels] of Object.entries(sum)) {
    const pair = typeof labels === 'object' ? propertyOf(name) : null;
    if (pair) for (const [value, count] of Object.entries(labels)) rows.push({ ...pair, value, count });
  }
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.sort((a, b) => b.count - a.count || text(a.event, b.event) || text(a.property, b.property) || text(a.value, b.value));
}
