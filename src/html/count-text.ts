/**
 * A count as a person reads it on a page: digits grouped by thousands with commas, en-US style
 * ("12,345"), the same on every server whatever its locale or ICU data. JSON answers keep numbers.
 */
export function countText(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const [whole = '', fraction] = String(Math.abs(n)).split('.');
  // Exponent forms (1e21 and up) are left as they are: no count gets there.
  const grouped = /^\d+$/.test(whole) ? whole.replace(/\B(?=(\d{3})+$)/g, ',') : whole;
  return `${n < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}
