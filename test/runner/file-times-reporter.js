/**
 * A node:test reporter beside TAP: one line per test file, `path<TAB>ms`, the time its process took.
 * Node 20's TAP report has no line per file, only per test; the runner prints the slowest files.
 * JavaScript, not TypeScript: node's test runner loads reporters before tsx's loader is in place.
 */

/**
 * The reporter (node loads a reporter module's default export: the one default export of the project).
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* fileTimes(source) {
  for await (const event of source) {
    // A file's own test is named by its path; its tests carry the path in `file` under their own names.
    if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.name === event.data.file) {
      yield `${event.data.file}\t${event.data.details.duration_ms}\n`;
    }
  }
}
