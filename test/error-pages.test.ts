/** A browser that opens a path outside the APIs gets a page for an error; API clients and everything under /api keep the JSON bodies. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsHtml } from '../src/http/error-page.ts';
import { snapshotOf, testApp } from './helpers.ts';
import type { Reply } from './helpers.ts';

/** What Chromium sends when it opens a page. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

/** An error page in the look and with the headers of the other pages. */
function assertPage(r: Reply, status: number, heading: RegExp, what: string): void {
  assert.equal(r.status, status, `${what}: ${r.text.slice(0, 200)}`);
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/, what);
  assert.match(r.text, /^<!doctype html>/, what);
  assert.match(r.text, heading, what);
  assert.doesNotMatch(r.text, /"error"|Endpoint not found/, what);
  assert.match(r.headers.get('content-security-policy') ?? '', /^default-src 'none'/, what);
  assert.equal(r.headers.get('x-frame-options'), 'DENY', what);
  assert.equal(r.headers.get('cache-control'), 'no-store', what);
}

test('Accept names HTML only for text/html or XHTML with a q above 0', () => {
  const cases: [string | undefined, boolean][] = [
    [BROWSER, true],
    ['text/html', true],
    ['TEXT/HTML; charset=utf-8', true],
    ['application/xhtml+xml', true],
    ['application/json, text/html;q=0.1', true],
    ['text/html;q=0', false],
    ['text/html;q=0.0', false],
    ['*/*', false],
    ['text/*', false],
    ['application/json', false],
    ['', false],
    [undefined, false],
  ];
  for (const [accept, expected] of cases) assert.equal(acceptsHtml(accept), expected, String(accept));
});

test('a browser opening a path with nothing at it gets the 404 page; other clients get the JSON body as before', async (t) => {
  for (const errorStatus of ['real', 200] as const) {
    const { call } = await testApp({ errorStatus });
    const paths = ['/docs/', '/stats/', '/a/b', '/u/', '/qr/', '/a/b/c?x=<b>', '/API/nothing'];
    await t.test(`ERROR_STATUS=${errorStatus}`, async () => {
      for (const path of paths) {
        for (const method of ['GET', 'HEAD']) {
          const r = await call(method, path, { key: null, headers: { accept: BROWSER } });
          if (method === 'HEAD') assert.deepEqual([r.status, r.text], [404, ''], `HEAD ${path}`);
          else {
            assertPage(r, 404, /<h1>Page not found<\/h1>/, path);
            assert.match(r.text, /<link rel="icon"/, `${path}: the site's icon`);
            assert.match(r.text, /href="\/docs"/, `${path}: a way on`);
            assert.doesNotMatch(r.text, /<b>/, `${path}: nothing of the path is echoed unescaped`);
          }
        }
        for (const accept of [undefined, '*/*', 'application/json', 'text/html;q=0']) {
          const r = await call('GET', path, { key: null, headers: accept === undefined ? {} : { accept } });
          assert.deepEqual([r.status, r.body], [404, { error: 1, message: 'Endpoint not found.' }], `${path} with Accept ${accept}`);
          assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
        }
      }
    });
  }
});

test('under /api every answer is JSON, whatever Accept says', async () => {
  const { call, store, makeUser } = await testApp();
  const alice = await makeUser('alice');
  const headers = { accept: BROWSER };
  const before = await snapshotOf(store, 'links');
  const cases: [method: string, path: string, key: string | null | undefined, status: number, body: unknown][] = [
    ['GET', '/api/nothing-here', undefined, 404, { error: 1, message: 'Endpoint not found.' }],
    ['GET', '/api/nothing-here', null, 401, { error: 1, message: 'A valid API key is required to use this service.' }],
    ['GET', '/api/url/999', alice.key, 404, { error: 1, message: 'Link does not exist.' }],
    ['DELETE', '/api/urls', alice.key, 405, { error: 1, message: 'Method not allowed. Use GET.' }],
    ['POST', '/api/url/add', alice.key, 400, { error: 1, message: 'Missing required parameter: url' }],
    ['GET', '/api/v1/nothing', alice.key, 404, { message: 'Resource not found.', status: 404 }],
    ['GET', '/api/v1/websites/999', alice.key, 404, { message: 'Resource not found.', status: 404 }],
    ['GET', '/api/v1/websites', null, 401, { message: 'Unauthenticated.', status: 401 }],
  ];
  for (const [method, path, key, status, body] of cases) {
    const r = await call(method, path, { key, headers, ...(method === 'POST' ? { body: {} } : {}) });
    assert.deepEqual([r.status, r.body], [status, body], `${method} ${path}`);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/, `${method} ${path}`);
  }
  assert.equal(await snapshotOf(store, 'links'), before);
});

test('other errors on page paths are pages for a browser (status and headers kept) and JSON for the rest', async () => {
  const { call, store } = await testApp();
  assert.equal((await call('POST', '/api/qr/add', { body: { type: 'text', data: 'hello' } })).status, 200);
  const alias = (await snapshotOf(store, 'qrs')).match(/"alias":"([^"]+)"/)![1]!;

  // A query a page refuses: 400.
  const bad = await call('GET', `/qr/${alias}?size=99999`, { key: null, headers: { accept: BROWSER } });
  assertPage(bad, 400, /<h1>Bad request<\/h1>[\s\S]*Invalid size: must be an integer from 64 to 2048\./, 'bad size');
  const badJson = await call('GET', `/qr/${alias}?size=99999`, { key: null });
  assert.deepEqual([badJson.status, badJson.body], [400, { error: 1, message: 'Invalid size: must be an integer from 64 to 2048.' }]);

  // A method the path does not have: 405 with Allow, as a page.
  const wrong = await call('DELETE', '/stats/example.com', { key: null, headers: { accept: BROWSER } });
  assertPage(wrong, 405, /<h1>Not allowed<\/h1>/, 'wrong method');
  assert.equal(wrong.headers.get('allow'), 'GET, HEAD, POST');
  const wrongJson = await call('DELETE', '/stats/example.com', { key: null });
  assert.deepEqual([wrongJson.status, wrongJson.body, wrongJson.headers.get('allow')], [405, { error: 1, message: 'Method not allowed. Use GET or POST.' }, 'GET, HEAD, POST']);
});
