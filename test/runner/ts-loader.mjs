/**
 * Loads TypeScript in the test processes of `npm test` (--import), in place of tsx: the same esbuild
 * transform, without tsx's own resolution and CommonJS hooks, which cost each process ~0.25 s of CPU
 * over this (over a hundred test processes a run). A file run alone still uses `--import tsx`.
 */
import assert from 'node:assert';
import { register } from 'node:module';
import { inspect } from 'node:util';

// Stack traces and assertion locations in the .ts lines, as under tsx.
process.setSourceMapsEnabled(true);
register('./ts-hooks.mjs', import.meta.url);

// A failed assert.ok(value) with no message has node:assert read the call's source from the file at
// the stack's line and column: those of the one-line transform, not of the .ts file, where Node 20
// reads on for minutes (a failed assert.ok in a 600-line file held its test process for 16). Such
// a failure gets its message here instead; the stack, source-mapped, says where it was.
const ok = assert.ok;
assert.ok = assert.strict.ok = function okWithMessage(...args) {
  if (args.length >= 1 && !args[0] && args[1] === undefined) args[1] = `The expression evaluated to a falsy value: ${inspect(args[0])}`;
  return ok.apply(this, args);
};

// A test file's process counts its own coverage, not that of the processes it starts: one started
// through tsx (the bin, the fake's entry) holds another transform of the same files, and c8 merges
// V8 coverage by file before mapping it back, so the two would garble each other's counts (those
// started from the runner's build were never counted). V8 keeps the folder it read at start-up.
if (process.env.NODE_TEST_CONTEXT) delete process.env.NODE_V8_COVERAGE;
