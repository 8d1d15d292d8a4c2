/**
 * A node:test reporter beside TAP: one line per test file, `path<TAB>ms`, the time its process took
 * (`part<TAB>path<TAB>ms` for a file of a group: its tests' time), and one line per failed test,
 * `fail<TAB>path<TAB>name<TAB>message`. Node 20's TAP report has no
 * line per file, only per test; the runner prints the slowest files, and the failed tests last, where
 * a CI log's tail shows them.
 * JavaScript, not TypeScript: node's test runner loads reporters before tsx's loader is in place.
 */

/**
 * The reporter (node loads a reporter module's default export: the one default export of the project).
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* fileTimes(source) {
  // The top-level tests' times by the file that declares them: a file run in a group's process
  // (test/runner/groups.ts) has no test of its own, so its time is theirs, added up.
  const parts = new Map();
  const whole = new Set();
  for await (const event of source) {
    // A file's own test is named by its path; its tests carry the path in `file` under their own names.
    if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.name === event.data.file) {
      whole.add(event.data.file);
      yield `${event.data.file}\t${event.data.details.duration_ms}\n`;
    }
    // A process's top-level tests are at nesting 0 too, beside the test named by its file.
    if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.file && event.data.name !== event.data.file) {
      parts.set(event.data.file, (parts.get(event.data.file) ?? 0) + event.data.details.duration_ms);
    }
    // A test that failed itself, not one failing because a subtest did.
    if (event.type === 'test:fail' && event.data.details.error?.failureType !== 'subtestsFailed' && event.data.name !== event.data.file) {
      const cause = event.data.details.error?.cause ?? event.data.details.error;
      const message = String(cause?.message ?? cause ?? '').replace(/\s+/g, ' ').slice(0, 300);
      yield `fail\t${event.data.file ?? '?'}\t${event.data.name.replace(/\s+/g, ' ')}\t${message}\n`;
    }
  }
  for (const [file, ms] of parts) if (!whole.has(file)) yield `part\t${file}\t${ms}\n`;
}
