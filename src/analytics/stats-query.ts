import * as v from 'valibot';
import { STAT_FORMATS } from '../http/downloads.ts';
import { dateField } from './form-fields.ts';
import { listQuery } from './list-page.ts';
import { METRICS } from './metrics.ts';
import { PROPERTY_NAME_MAX } from './event-properties.ts';

/** The query of `GET /api/v1/stats/{id}`, for the route and its OpenAPI operation alike. */
export const statsQuery = listQuery(['value'], ['count', 'value'], {
  name: v.picklist(METRICS, `The selected name is invalid. Valid names: ${METRICS.join(', ')}.`),
  from: dateField('from'),
  to: dateField('to'),
  event: v.optional(v.pipe(v.string(), v.maxLength(255, 'The event must not be greater than 255 characters.'))),
  property: v.optional(v.pipe(v.string(), v.maxLength(PROPERTY_NAME_MAX, `The property must not be greater than ${PROPERTY_NAME_MAX} characters.`))),
  format: v.optional(v.picklist(STAT_FORMATS, `The selected format is invalid. Valid formats: ${STAT_FORMATS.join(', ')}.`)),
});

/** A validated stats query. */
export type StatsQuery = v.InferOutput<typeof statsQuery>;

/** The query of `GET /api/v1/stats/{id}/export`: the range. */
export const exportQuery = v.object({ from: dateField('from'), to: dateField('to') });
