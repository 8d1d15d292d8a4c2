/**
 * A PostgreSQL URL as libpq reads it, and where it points: `?host=` (a Unix socket's directory, or
 * a host) wins over the URL's own host. libpq's socket form names a user before an empty host
 * (`postgres://user@/db?host=/run/postgresql`), which the URL parser refuses: it is read with a
 * stand-in host, reported as none. Null when `raw` is no URL at all.
 */
export function parseDatabaseUrl(raw: string): { url: URL; host: string } | null {
  const url = parsedUrl(raw) ?? parsedUrl(raw.replace(/@\/(?!\/)/, `@${NO_HOST}/`));
  if (!url) return null;
  return { url, host: url.searchParams.get('host') || (url.hostname === NO_HOST ? '' : url.hostname) };
}

const NO_HOST = 'no-host.invalid';

function parsedUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}
