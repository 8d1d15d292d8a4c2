import type { Condition, ListQuery, Sort, Where } from '../store.ts';
import type { TablePlan } from './tables.ts';
import { encodeJson, encodeText } from './text-codec.ts';

/** Parameters of one statement: add a value, get its $n. */
export class Params {
  readonly values: unknown[] = [];

  /** The placeholder of `value`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The SQL of a record field: the id and owner columns, or the field in `data` (the name as a parameter). */
function jsonOf(field: string, p: Params): string {
  if (field === 'id') return 'to_jsonb(t.id)';
  if (field === 'userId') return 'to_jsonb(t.user_id)';
  return `t.data -> ${p.add(encodeText(field))}::text`;
}

/** A field name as an SQL literal: only for names from the table plan (migration 015's indexes name them so). */
function fieldLiteral(field: string): string {
  return `'${field.replace(/'/g, "''")}'`;
}

/**
 * A condition on a field with an index of its own (TablePlan.fieldIndexes), written as the index is:
 * its expression with the field's name in the text, and the index's predicate (the field holds a
 * value, or a list that is not empty) stated, so the planner can use the partial index. The same
 * records as the containment below: a scalar's containment is its equality, a list's holds the value.
 */
function indexedSql(c: Condition, p: Params, kind: 'equals' | 'holds' | undefined): string | null {
  if (kind === 'equals' && 'equals' in c && c.equals !== null) {
    const f = fieldLiteral(c.field);
    return `(t.data -> ${f}) = ${p.add(encodeJson(c.equals))}::jsonb AND (t.data ->> ${f}) IS NOT NULL`;
  }
  if (kind === 'holds' && 'holds' in c) {
    const f = fieldLiteral(c.field);
    return `(t.data -> ${f}) <> '[]'::jsonb AND (t.data -> ${f}) @> ${p.add(encodeJson([c.holds]))}::jsonb`;
  }
  if ('present' in c) return `(t.data ->> ${fieldLiteral(c.field)}) IS NOT NULL`;
  return null;
}

// data @> {"field": value}: a scalar contains only itself.
function conditionSql(c: Condition, p: Params, plan?: Pick<TablePlan, 'fieldIndexes'>): string {
  if (c.field !== 'id' && c.field !== 'userId') {
    const indexed = indexedSql(c, p, plan?.fieldIndexes?.[c.field]);
    if (indexed !== null) return indexed;
  }
  if ('present' in c) return c.field === 'userId' ? 't.user_id IS NOT NULL' : c.field === 'id' ? 'true' : `t.data ->> ${p.add(encodeText(c.field))}::text IS NOT NULL`;
  if ('equals' in c) {
    if (c.equals === null) {
      if (c.field === 'id') return 'false';
      if (c.field === 'userId') return 't.user_id IS NULL';
      return `coalesce(t.data -> ${p.add(encodeText(c.field))}::text, 'null'::jsonb) = 'null'::jsonb`;
    }
    if (c.field === 'id' || c.field === 'userId') return `${jsonOf(c.field, p)} = ${p.add(encodeJson(c.equals))}::jsonb`;
    return `t.data @> ${p.add(encodeJson({ [c.field]: c.equals }))}::jsonb`;
  }
  if ('equalsIgnoringCase' in c) {
    const v = jsonOf(c.field, p);
    return `(jsonb_typeof(${v}) = 'string' AND lower(${v} #>> '{}') = lower(${p.add(encodeText(c.equalsIgnoringCase))}::text))`;
  }
  if ('below' in c) {
    const v = jsonOf(c.field, p);
    // CASE, not AND: PostgreSQL may evaluate the cast of a string first, and fail on it.
    return `(CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric < ${p.add(c.below)}::numeric ELSE false END)`;
  }
  if (c.field === 'id' || c.field === 'userId') return 'false';
  return `t.data @> ${p.add(encodeJson({ [c.field]: [c.holds] }))}::jsonb`;
}

/** `text` safe inside a LIKE pattern: its %, _ and \ match themselves. */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

// String(value ?? ''): absent and null are '', other values their text (a JSON string without quotes).
function textOf(field: string, p: Params): string {
  if (field === 'id') return 't.id::text';
  if (field === 'userId') return "coalesce(t.user_id::text, '')";
  return `coalesce(t.data ->> ${p.add(encodeText(field))}::text, '')`;
}

/**
 * The text a table's trigram index holds (migration 014 creates it with this very expression: the
 * planner matches the two as written): the fields' texts, lowercased, one per line.
 */
export function searchIndexSql(fields: readonly string[]): string {
  return `lower(${fields.map((f) => `coalesce(t.data ->> '${f.replace(/'/g, "''")}', '')`).join(" || E'\\n' || ")})`;
}

/**
 * The WHERE clause (without the keyword) of `where`, 'true' when it covers everything. A search of
 * exactly the fields of a table's trigram index tests that index's text (the fields, one per line):
 * text without a line break is in it exactly when it is in one of the fields. Text with one, or
 * other fields, is tested field by field (the same answers, without the index).
 */
export function whereSql(where: Where, p: Params, plan?: Pick<TablePlan, 'searchIndex' | 'fieldIndexes'>): string {
  const parts: string[] = [];
  if (where.owner !== undefined) parts.push(`t.user_id = ${p.add(where.owner)}::bigint`);
  if (where.ids) parts.push(`t.id = ANY(${p.add(where.ids.filter((id) => Number.isSafeInteger(id)))}::bigint[])`);
  for (const c of where.conditions ?? []) parts.push(conditionSql(c, p, plan));
  const text = where.search?.text;
  if (text) {
    const fields = where.search!.fields;
    if (fields.length === 0) parts.push('false');
    else {
      const pattern = p.add(`%${likeEscape(encodeText(text))}%`);
      const indexed = plan?.searchIndex;
      const whole = indexed && !text.includes('\n') && indexed.length === new Set(fields).size && fields.every((f) => indexed.includes(f));
      if (whole) parts.push(`${searchIndexSql(indexed)} LIKE lower(${pattern}::text)`);
      else parts.push(`(${fields.map((f) => `lower(${textOf(f, p)}) LIKE lower(${pattern}::text)`).join(' OR ')})`);
    }
  }
  return parts.length ? parts.join(' AND ') : 'true';
}

/**
 * ORDER BY of a sort, ties by id in the same direction. A field sorts numbers by value and
 * everything else by its text (absent as ''), as the file store does; an absent value next to
 * numbers counts as 0 there (JavaScript compares '' as 0), so it does here. Text compares in the
 * "C" collation: code point order, not the database's locale. A counter sorts by its total: the
 * kept one where the table has it (an index of the owner's records by total), else summed per row.
 */
export function orderSql(sort: Sort, p: Params, plan?: Pick<TablePlan, 'keptTotal'>, owner?: number): { join: string; order: string } {
  const dir = sort.direction === 'asc' ? 'ASC' : 'DESC';
  const nulls = sort.direction === 'asc' ? 'NULLS LAST' : 'NULLS FIRST';
  const kept = plan?.keptTotal;
  if ('counter' in sort && kept && kept.counter === sort.counter && kept.subjectPrefix === sort.subjectPrefix) {
    // Every record has its row (made as it is inserted); the owner named here too lets the index lead.
    const mine = owner === undefined ? '' : ` AND k.user_id = ${p.add(owner)}::bigint`;
    return { join: `JOIN ${kept.table} k ON k.${kept.key} = t.id${mine}`, order: `k.${kept.total} ${dir}, k.${kept.key} ${dir}` };
  }
  if ('counter' in sort) {
    const join = `LEFT JOIN LATERAL (SELECT sum(c.n) AS total FROM stat_days d JOIN stat_counts c ON c.day_id = d.id
      WHERE d.subject = ${p.add(encodeText(sort.subjectPrefix))}::text || t.id::text AND c.metric = ${p.add(encodeText(sort.counter))}::text AND c.is_total) s ON true`;
    return { join, order: `coalesce(s.total, 0) ${dir}, t.id ${dir}` };
  }
  if (sort.field === 'id') return { join: '', order: `t.id ${dir}` };
  if (sort.field === 'userId') return { join: '', order: `coalesce(t.user_id, 0) ${dir}, t.id ${dir}` };
  const v = `t.data -> ${p.add(encodeText(sort.field))}::text`;
  const num = `CASE WHEN ${v} IS NULL OR jsonb_typeof(${v}) = 'null' THEN 0 WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END`;
  const text = `CASE jsonb_typeof(${v}) WHEN 'number' THEN '' ELSE coalesce(${v} #>> '{}', '') END COLLATE "C"`;
  return { join: '', order: `${num} ${dir} ${nulls}, ${text} ${dir}, t.id ${dir}` };
}

/** OFFSET/LIMIT of a query, as the file store slices: negative offsets are 0, negative limits give nothing. */
export function sliceSql(query: ListQuery, p: Params): string {
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const limit = query.limit === undefined ? null : Math.max(0, Math.floor(query.limit));
  return `${limit === null ? '' : ` LIMIT ${p.add(limit)}::bigint`}${offset ? ` OFFSET ${p.add(offset)}::bigint` : ''}`;
}
