/**
 * Loaded into every test process of `npm test` (--import): node:test's way of knowing which test an
 * uncaught error belongs to, at a fraction of its cost.
 *
 * Node 20's test harness (node:internal/test_runner/harness) maps every async resource to its test
 * with an async hook that has a `destroy` callback. A destroy callback makes V8 track the death of
 * every promise (a weak callback each): about a tenth of the CPU of the test processes, whose tests
 * make millions of promises through the app. Here the harness's hook is given callbacks that do the
 * same mapping without it:
 * - a resource's test is kept on the resource itself (a symbol, as AsyncLocalStorage keeps its
 *   store), copied from the resource that runs when it is made, so promises cost a property each;
 * - the harness's own map gets the resources that can report an error (timers, sockets, ticks: not
 *   promises), each under its test, and forgets the oldest of them past KEPT (no destroy hook);
 * - a promise rejected with no handler is reported in the async context of that promise: it is
 *   entered into the harness's map just then, so the harness fails the test it came from.
 * Any other hook, and a harness that does not look as expected, get Node's own createHook unchanged.
 * JavaScript: it runs before the TypeScript loader matters. test/test-context.test.ts checks that a
 * late error, a floating rejection and a throw in a timer still fail their own tests.
 */
import asyncHooks from 'node:async_hooks';

const { createHook, executionAsyncId, executionAsyncResource } = asyncHooks;
const TEST = Symbol('the test this async resource belongs to');
/** Resources in the harness's map at once: errors from older ones are still reported, as a file's. */
const KEPT = 1 << 16;
/** The harness's resources: a test, a suite, a hook (their classes' names in node:internal/test_runner/test). */
const TEST_CLASSES = new Set(['Test', 'Suite', 'TestHook']);

asyncHooks.createHook = function cheaperHarnessHook(callbacks) {
  const harness = (new Error().stack ?? '').includes('node:internal/test_runner/harness');
  if (!harness || typeof callbacks?.init !== 'function' || typeof callbacks.destroy !== 'function') return createHook(callbacks);
  const { init, destroy } = callbacks;
  const mapped = new Float64Array(KEPT);
  let next = 0;
  const enter = (asyncId, type, trigger, resource) => {
    init(asyncId, type, trigger, resource);
    if (mapped[next] !== 0) destroy(mapped[next]);
    mapped[next] = asyncId;
    next = (next + 1) % KEPT;
  };
  process.on('unhandledRejection', () => {
    const test = executionAsyncResource()?.[TEST];
    if (test !== undefined) enter(executionAsyncId(), 'PROMISE', test.asyncId(), {});
  });
  globalThis[Symbol.for('shortlink.test-context')] = 'cheaper';
  return createHook({
    init(asyncId, type, trigger, resource) {
      if (typeof resource !== 'object' || resource === null) return;
      const own = TEST_CLASSES.has(resource.constructor?.name);
      const test = own ? resource : executionAsyncResource()?.[TEST];
      if (test === undefined) return;
      resource[TEST] = test;
      if (type !== 'PROMISE') enter(asyncId, type, own ? trigger : test.asyncId(), resource);
    },
  });
};
