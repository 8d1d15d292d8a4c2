/**
 * The files `import-links` and `POST /api/import` read: each product's documented export of links,
 * and a generic CSV. A format names, per field of a link, the columns (or JSON keys) it may come
 * from; names are compared without letter case, spaces, underscores, dashes or dots, so `Long URL`,
 * `long_url` and `longUrl` are one name. What each product writes, and where that comes from, is
 * said beside its row; a file whose header misses the url column is refused before anything is read.
 */

/** The fields of a link an import keeps. `shortUrl` gives the alias (its last path segment) and the domain when no column does. */
export type ImportField = 'url' | 'alias' | 'shortUrl' | 'title' | 'created' | 'clicks' | 'tags' | 'domain';

/** One source format. */
export interface ImportFormat {
  name: string;
  /** What the file is, for messages and docs. */
  label: string;
  /** CSV with a header row, JSON (a list, or an object with a `data` list), or either (told by the first character). */
  kind: 'csv' | 'json' | 'csv-or-json';
  columns: Partial<Record<ImportField, readonly string[]>>;
  /** The columns in order of a file without a header row (a table dumped as it is); null: a column not kept. */
  headerless?: readonly (ImportField | null)[];
  /** What separates several tags in one cell (default `|` or `,`). */
  tagSeparator?: RegExp;
}

/** A column or key name as formats list them: lowercase letters and digits only. */
export const columnName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The formats, by the name `--format` and `format=` take. */
export const IMPORT_FORMATS: readonly ImportFormat[] = [
  {
    // Ours: any spreadsheet with a header row. The names of the other formats' columns are taken too.
    name: 'csv',
    label: 'a CSV file with a header row (url, alias, title, created, clicks, tags)',
    kind: 'csv',
    columns: {
      url: ['url', 'longurl', 'destination', 'destinationurl', 'target', 'originalurl'],
      alias: ['alias', 'slug', 'keyword', 'shortcode', 'custom', 'backhalf', 'slashtag'],
      shortUrl: ['shorturl', 'shortlink', 'link', 'bitlink'],
      title: ['title', 'name'],
      created: ['created', 'createdat', 'datecreated', 'creationdate', 'date', 'timestamp'],
      clicks: ['clicks', 'totalclicks', 'visits', 'visitcount', 'hits'],
      tags: ['tags', 'tag'],
      domain: ['domain'],
    },
  },
  {
    // Bitly's CSV export of links (Links → Export; and the v4 API's `links_list` export). Columns are
    // the Bitlink fields its API documents (dev.bitly.com, "Bitlink": id, link, long_url, title,
    // created_at, custom_bitlinks, tags) plus the click total, written as snake_case names or as the
    // web app's headings ("Long URL", "Created", "Total clicks"). The alias is the back-half of the
    // first custom bitlink when there is one, else of the bitlink (`bit.ly/3xYzAbc` → 3xYzAbc).
    name: 'bitly',
    label: "Bitly's CSV export of links",
    kind: 'csv',
    columns: {
      url: ['longurl', 'destinationurl'],
      alias: ['custombitlinks', 'custombitlink', 'custombackhalves', 'custombackhalf'],
      shortUrl: ['link', 'bitlink', 'shortlink', 'shorturl', 'id'],
      title: ['title'],
      created: ['createdat', 'created', 'datecreated', 'creationdate', 'date'],
      clicks: ['clicks', 'totalclicks', 'engagements', 'totalengagements'],
      tags: ['tags'],
    },
  },
  {
    // YOURLS: the `yourls_url` table's columns (keyword, url, title, timestamp, ip, clicks), which its
    // export plugins write as CSV (with that header, or without one, in that order) and an SQL
    // client's "export as CSV" of the table too. The timestamp is `YYYY-MM-DD HH:MM:SS`, taken as UTC.
    name: 'yourls',
    label: "YOURLS's links (its yourls_url table as CSV: keyword, url, title, timestamp, ip, clicks)",
    kind: 'csv',
    columns: { url: ['url'], alias: ['keyword'], title: ['title'], created: ['timestamp'], clicks: ['clicks'] },
    headerless: ['alias', 'url', 'title', 'created', null, 'clicks'],
  },
  {
    // Shlink: the web client's "Export" of the short URLs list (short_urls.csv, shlink-web-component's
    // ExportableShortUrl: createdAt, title, shortUrl, domain, shortCode, longUrl, tags, visits), tags
    // joined by `|` as shlink-importer reads them back.
    name: 'shlink',
    label: "Shlink's short URLs export (short_urls.csv of its web client)",
    kind: 'csv',
    columns: {
      url: ['longurl'],
      alias: ['shortcode'],
      shortUrl: ['shorturl'],
      title: ['title'],
      created: ['createdat', 'datecreated'],
      clicks: ['visits', 'visitscount', 'visitssummarytotal'],
      tags: ['tags'],
      domain: ['domain'],
    },
    tagSeparator: /\|/,
  },
  {
    // Kutt has no export button: its API's list of links is the export (GET /api/v2/links, a JSON
    // object whose `data` holds link objects: address, target, description, created_at, visit_count,
    // domain, link), as shlink-importer reads it. A CSV with those column names is taken as well.
    name: 'kutt',
    label: "Kutt's links (the JSON of its GET /api/v2/links)",
    kind: 'csv-or-json',
    columns: {
      url: ['target'],
      alias: ['address'],
      shortUrl: ['link'],
      title: ['description'],
      created: ['createdat'],
      clicks: ['visitcount'],
      domain: ['domain'],
    },
  },
  {
    // Rebrandly: the dashboard's CSV export of links and the API's list of links (GET /v1/links, a
    // JSON list) share the link entity's fields (developers.rebrandly.com, "Link entity": slashtag,
    // destination, shortUrl, title, domain.fullName, createdAt, clicks, tags).
    name: 'rebrandly',
    label: "Rebrandly's export of links (CSV, or the JSON of GET /v1/links)",
    kind: 'csv-or-json',
    columns: {
      url: ['destination', 'destinationurl', 'longurl'],
      alias: ['slashtag'],
      shortUrl: ['shorturl', 'shortlink'],
      title: ['title'],
      created: ['createdat', 'created', 'creationdate'],
      clicks: ['clicks'],
      tags: ['tags', 'tagsname'],
      domain: ['domainfullname', 'domain', 'domainname'],
    },
  },
];

/** The names of the formats, for usage lines and messages. */
export const FORMAT_NAMES = IMPORT_FORMATS.map((f) => f.name);

/** The format called `name`, or undefined. */
export function importFormat(name: string): ImportFormat | undefined {
  return IMPORT_FORMATS.find((f) => f.name === name.toLowerCase());
}
