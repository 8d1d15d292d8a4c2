import * as v from 'valibot';
import { FORMAT_NAMES, IMPORT_FORMATS } from '../imports/formats.ts';
import { IMPORT_JOB_PATH, IMPORT_PATH } from '../routes/link-api/imports.ts';
import { date, int, str } from '../resources/shapes.ts';
import type { Components } from './components.ts';
import { linkSuccessSchema, ref } from './components.ts';
import type { Schema } from './json-schema.ts';
import { PAGE_PARAMS } from './link-operations.ts';
import type { OpSpec, Param } from './operation.ts';

/** The docs tag of the import operations. */
export const IMPORTS_TAG = 'Imports';

const EXAMPLE_FILE = 'url,alias,title,created,clicks\nhttps://example.com/pricing,pricing,Pricing,2024-02-29,120\nhttps://example.com/about,,About us,,\n';

const rowShape = v.strictObject({
  row: int,
  outcome: v.picklist(['created', 'skipped', 'refused']),
  id: v.optional(int),
  alias: v.optional(str),
  url: v.optional(str),
  message: v.optional(str),
});

const jobShape = v.strictObject({
  id: int,
  format: v.picklist(FORMAT_NAMES),
  dry_run: v.boolean(),
  state: v.picklist(['queued', 'running', 'finished', 'failed']),
  progress: v.strictObject({ done: int, total: int }),
  created: int,
  skipped: int,
  refused: int,
  message: v.nullable(str),
  date,
  started: v.nullable(date),
  finished: v.nullable(date),
  report: v.strictObject({ result: int, perpage: int, currentpage: int, nextpage: v.nullable(int), maxpage: int, rows: v.array(rowShape) }),
});

const FIELDS: readonly Param[] = [
  {
    name: 'format',
    required: true,
    description: `What the file is: ${IMPORT_FORMATS.map((f) => `\`${f.name}\`, ${f.label}`).join('; ')}. In a form, the \`format\` field may give it instead.`,
    schema: { type: 'string', enum: [...FORMAT_NAMES] },
    example: 'csv',
  },
  { name: 'dry_run', description: 'Check every row as a real import would, and store no link (the job and its report are stored).', schema: { type: 'string', enum: ['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'], default: 'false' } },
];

const text = (description: string): Schema => ({ type: 'string', description });

/** The import routes: a file in, a job queued (202); the job's state, progress and report. */
export function importOperations(c: Components): OpSpec[] {
  const queued = c.schema('ImportQueued', () => ({
    ...linkSuccessSchema({ id: int, state: v.literal('queued'), dry_run: v.boolean(), total: int, status: str }),
    description: 'The job: `status` is the URL of its state (also the `Location` header).',
  }));
  const job = c.schema('ImportJob', () => linkSuccessSchema({ data: jobShape }));
  const form: Schema = { type: 'object', required: ['file'], properties: { file: text('The file.'), format: { type: 'string', enum: [...FORMAT_NAMES] }, dry_run: { type: 'string' } } };
  return [
    {
      tag: IMPORTS_TAG,
      dialect: 'link',
      operationId: 'createImport',
      method: 'post',
      path: IMPORT_PATH,
      summary: 'Import links from another shortener',
      description:
        "Queues an import job of a file another shortener exported (or a CSV of your own) and answers at once (202) with the job's id; the links are created in the background, each row as `POST /api/url/add` would create it " +
        '(the same checks and messages), keeping the alias, title, creation date and click total (added to the link\'s statistics as clicks of its creation day) where the file has them. ' +
        'A row whose alias you have already with the same URL is skipped as "already imported", so sending a file again creates nothing new. ' +
        'The body is the file itself (CSV, or JSON for `kutt` and `rebrandly`; any content type but multipart and those of images, audio, video, archives, PDF, XML and HTML, which answer 415), or a `multipart/form-data` form with the file in `file`. ' +
        'At most IMPORT_MAX_BYTES (413 past it). A file the format cannot read (no URL column, broken CSV or JSON, no rows) is a 400 and nothing is stored. ' +
        'A user has at most 3 imports queued or running: a fourth is a 429 with `Retry-After`.',
      findsRecord: false,
      query: FIELDS,
      body: {
        schema: text('The file.'),
        required: true,
        example: EXAMPLE_FILE,
        types: ['text/csv', 'multipart/form-data'],
        byType: { 'multipart/form-data': { schema: form, example: { file: EXAMPLE_FILE, format: 'csv', dry_run: 'true' } } },
      },
      responses: {
        '202': { description: 'The job is queued.', schema: queued, headers: { Location: { description: "The URL of the job's state.", schema: { type: 'string' } } } },
        '413': { description: 'The file is larger than IMPORT_MAX_BYTES.', schema: ref('LinkError') },
        '415': { description: 'The body is of a type no import reads (an image, an archive, XML, HTML…).', schema: ref('LinkError') },
      },
    },
    {
      tag: IMPORTS_TAG,
      dialect: 'link',
      operationId: 'getImport',
      method: 'get',
      path: IMPORT_JOB_PATH,
      summary: 'An import job: its state, progress and report',
      description:
        'Where the job stands (`queued`, `running`, `finished`, or `failed` with a `message`), how many rows of `progress.total` are done, how they ended, and one page of the per-row report in the file\'s order: ' +
        "each row `created` (with the new link's `id` and `alias`), `skipped` (its alias is taken: by your link of the same URL, \"already imported\", or by another of your links or files, named, or by another user's, not named) " +
        "or `refused` (with the link API's message). Another user's job answers 404, as a missing one.",
      pathParams: { id: { description: 'The id `POST /api/import` answered.' } },
      query: PAGE_PARAMS,
      responses: { '200': { description: 'The job.', schema: job } },
    },
  ];
}
