import { isHttpUrl } from '../resources/fields.ts';

/**
 * `location` as a value Node accepts in a `Location` header. URL fields are stored as the client
 * sent them, so this is where they are encoded, and only as much as a header needs: printable
 * ASCII is kept as it is; a URL the API took that holds more (`https://bücher.example/ü`) is
 * written in the URL parser's form (`https://xn--bcher-kva.example/%C3%BC`); anything else (a
 * control character, a line break, a lone surrogate: data that reached the store another way, an
 * import) is percent-encoded character by character, since a header Node refuses would otherwise
 * throw while the response is written, outside any handler.
 */
export function headerSafeLocation(location: string): string {
  if (/^[\x21-\x7e]*$/.test(location)) return location;
  if (isHttpUrl(location)) return new URL(location).href;
  // A surrogate pair is one character; a lone surrogate has no UTF-8 form and becomes U+FFFD, as the URL parser writes it.
  return location.replace(/[\ud800-\udbff][\udc00-\udfff]|[^\x21-\x7e]/g, (ch) => (/^[\ud800-\udfff]$/.test(ch) ? '%EF%BF%BD' : encodeURIComponent(ch)));
}
