/**
 * `location` as a value Node accepts in a `Location` header: printable ASCII is kept as it is, and
 * anything else (a control character, a line break, a space, non-ASCII, a lone surrogate) is
 * percent-encoded. URL fields are stored normalised, so this only changes data that reached the
 * store another way (an import, an older version); a header Node refuses would otherwise throw
 * while the response is written, outside any handler.
 */
export function headerSafeLocation(location: string): string {
  if (/^[\x21-\x7e]*$/.test(location)) return location;
  // A surrogate pair is one character; a lone surrogate has no UTF-8 form and becomes U+FFFD, as the URL parser writes it.
  return location.replace(/[\ud800-\udbff][\udc00-\udfff]|[^\x21-\x7e]/g, (ch) => (/^[\ud800-\udfff]$/.test(ch) ? '%EF%BF%BD' : encodeURIComponent(ch)));
}
