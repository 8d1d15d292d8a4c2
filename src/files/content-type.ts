/**
 * Which uploads the Files API takes, and as what type they are served: decided from the file's
 * first bytes (its magic number) and its extension together, never from what the client says.
 * Nothing that a browser would run or render as a document of our origin (HTML, SVG, XML,
 * scripts) is on the list; downloads are attachments anyway (see download.ts).
 */

/** One allowed kind of file: its extensions, served type, and the test its bytes must pass. */
interface Kind {
  extensions: readonly string[];
  type: string;
  matches: (bytes: Uint8Array) => boolean;
}

const startsWith = (bytes: Uint8Array, sig: readonly number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((ch) => ch.charCodeAt(0));
const ZIP = (b: Uint8Array) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06]);

// Text: valid UTF-8 and no control characters but tab, line feed, carriage return and form feed.
const decoder = new TextDecoder('utf-8', { fatal: true });
function isText(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return false;
  }
  return !/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text);
}

/** The allowlist. */
export const FILE_KINDS: readonly Kind[] = [
  { extensions: ['png'], type: 'image/png', matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { extensions: ['jpg', 'jpeg'], type: 'image/jpeg', matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { extensions: ['gif'], type: 'image/gif', matches: (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')) },
  { extensions: ['webp'], type: 'image/webp', matches: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8) },
  { extensions: ['pdf'], type: 'application/pdf', matches: (b) => startsWith(b, ascii('%PDF-')) },
  { extensions: ['zip'], type: 'application/zip', matches: ZIP },
  { extensions: ['docx'], type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', matches: ZIP },
  { extensions: ['xlsx'], type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', matches: ZIP },
  { extensions: ['pptx'], type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', matches: ZIP },
  { extensions: ['mp3'], type: 'audio/mpeg', matches: (b) => startsWith(b, ascii('ID3')) || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0) },
  { extensions: ['mp4'], type: 'video/mp4', matches: (b) => startsWith(b, ascii('ftyp'), 4) },
  { extensions: ['txt', 'log'], type: 'text/plain; charset=utf-8', matches: isText },
  { extensions: ['csv'], type: 'text/csv; charset=utf-8', matches: isText },
  { extensions: ['md'], type: 'text/markdown; charset=utf-8', matches: isText },
  { extensions: ['json'], type: 'application/json', matches: isText },
];

/** The extensions the allowlist takes, for messages and docs. */
export const ALLOWED_EXTENSIONS: readonly string[] = FILE_KINDS.flatMap((k) => k.extensions);

/** Why a file is refused: its extension is not allowed, or its bytes are not what its extension says. */
export type Refusal = 'extension' | 'content';

/** The served type of a file named `filename` with these bytes, or why it is refused. */
export function fileTypeOf(filename: string, bytes: Uint8Array): { type: string } | { refused: Refusal } {
  const dot = filename.lastIndexOf('.');
  const ext = dot === -1 ? '' : filename.slice(dot + 1).toLowerCase();
  const kind = FILE_KINDS.find((k) => k.extensions.includes(ext));
  if (!kind) return { refused: 'extension' };
  return kind.matches(bytes) ? { type: kind.type } : { refused: 'content' };
}

/** Whether a stored type is one the allowlist serves (an imported or seeded record may claim any). */
export const isServedType = (type: unknown) => FILE_KINDS.some((k) => k.type === type);
