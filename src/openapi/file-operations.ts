import { ALLOWED_EXTENSIONS } from '../files/content-type.ts';
import { files } from '../resources/files.ts';
import { UPLOAD_PATH, uploadFields } from '../routes/link-api/files.ts';
import type { Components } from './components.ts';
import { linkSuccessSchema, ref } from './components.ts';
import { inputSchema } from './json-schema.ts';
import type { Schema } from './json-schema.ts';
import type { OpSpec, Param } from './operation.ts';
import { titleOf } from './link-operations.ts';
import { int, str } from '../resources/shapes.ts';

const FIELD_NOTES: Record<string, string> = {
  name: 'The title the list shows (default: the file name).',
  custom: 'A custom alias: the short URL is `/<custom>`. Links and files share aliases.',
  domain: 'One of your branded domains, for the short URL.',
  password: 'A password the download asks for, with the password form and attempt limits of protected links; kept as a scrypt hash only.',
  expiry: 'After this date (`YYYY-MM-DD HH:MM:SS`, UTC) the short URL answers 410.',
};

const binary = (description: string): Schema => ({ type: 'string', contentMediaType: 'application/octet-stream', description });

/** The upload, the one Files operation outside the generic routes (its body is a file, not JSON). */
export function fileOperations(c: Components): OpSpec[] {
  const fields = inputSchema(uploadFields);
  const props = (fields.properties ?? {}) as Record<string, Schema>;
  const query: Param[] = Object.entries(props).map(([name, schema]) => ({ name, description: FIELD_NOTES[name], schema }));
  const form: Schema = { type: 'object', required: ['file'], properties: { file: binary('The file.'), ...props } };
  const created = c.schema('FileCreated', () => linkSuccessSchema({ id: int, shorturl: str }));
  return [
    {
      tag: titleOf(files).tag,
      dialect: 'link',
      operationId: 'uploadFile',
      method: 'post',
      path: UPLOAD_PATH,
      summary: 'Upload a file',
      description:
        'The body is the file itself (any content type but multipart), or a `multipart/form-data` form with the file in `file`; the optional fields come from the query string or the form. ' +
        `The file gets a short URL that downloads it as an attachment. At most FILE_MAX_BYTES (413 past it); an empty file is a 400. Allowed: ${ALLOWED_EXTENSIONS.join(', ')}, ` +
        'and the bytes must be what the extension says (415 otherwise).',
      findsRecord: false,
      pathParams: { filename: { description: 'The file name, extension included (the download keeps it).', example: 'notes.txt' } },
      query,
      body: {
        schema: binary('The file.'),
        required: true,
        example: 'Hello from a client.\n',
        types: ['application/octet-stream', 'multipart/form-data'],
        byType: { 'multipart/form-data': { schema: form, example: { file: 'Hello from a form.\n', name: 'Notes' } } },
      },
      responses: {
        '200': { description: 'The file was stored.', schema: created },
        '413': { description: 'The file is larger than FILE_MAX_BYTES.', schema: ref('LinkError') },
        '415': { description: 'A type of file that is not accepted, or bytes that are not what the extension says.', schema: ref('LinkError') },
      },
    },
  ];
}
