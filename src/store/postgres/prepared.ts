/** Statement texts given a name at most (beyond it they run unnamed): our SQL comes from a bounded set of code paths, this only guards against a path that varies its text. */
export const MAX_PREPARED = 500;

const names = new Map<string, string>();

/**
 * The query config of a statement with parameters: a named (prepared) statement, so each pooled
 * connection parses and plans it once instead of on every execution (PostgreSQL replans by itself
 * after a schema change). Texts without parameters (BEGIN, COMMIT, SAVEPOINT) stay simple queries.
 */
export function prepared(text: string, values?: unknown[]): string | { name?: string; text: string; values?: unknown[] } {
  if (!values) return text;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED) names.set(text, (name = `s${names.size + 1}`));
  return name === undefined ? { text, values } : { name, text, values };
}
