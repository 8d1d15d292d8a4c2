import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostOfUrl, normalizeDomain } from '../src/visits/domain.ts';

const domainCases: Array<{ input: string; want: string | null }> = [
  { input: 'example.com', want: 'example.com' },
  { input: '  Example.COM  ', want: 'example.com' },
  { input: 'https://www.example.com/', want: 'example.com' },
  { input: 'http://shop.example.co.uk', want: 'shop.example.co.uk' },
  { input: 'www.com', want: 'www.com' },
  { input: 'my-site.io', want: 'my-site.io' },
  { input: 'xn--mnchen-3ya.de', want: 'xn--mnchen-3ya.de' },
  { input: 'www.München.de', want: 'xn--mnchen-3ya.de' },
  { input: 'example.xn--p1ai', want: 'example.xn--p1ai' },
  { input: `${'a'.repeat(63)}.com`, want: `${'a'.repeat(63)}.com` },
  { input: `${'a'.repeat(64)}.com`, want: null },
  { input: `${Array.from({ length: 64 }, () => 'abc').join('.')}.com`, want: null },
  { input: '', want: null },
  { input: 'localhost', want: 'localhost' },
  { input: 'http://LocalHost/', want: 'localhost' },
  { input: '127.0.0.1', want: '127.0.0.1' },
  { input: 'app.localhost', want: 'app.localhost' },
  { input: 'localhost:3000', want: null },
  { input: '127.0.0.2', want: null },
  { input: '127.1', want: '127.0.0.1' }, // the URL standard's spelling of the same address
  { input: '[::1]', want: null },
  { input: 'example.com/path', want: null },
  { input: 'example.com//', want: null },
  { input: 'example.com?x=1', want: null },
  { input: 'example.com#top', want: null },
  { input: 'example.com:8080', want: null },
  { input: 'user:pw@example.com', want: null },
  { input: 'ftp://example.com', want: null },
  { input: '-bad.com', want: null },
  { input: 'bad-.com', want: null },
  { input: 'a..com', want: null },
  { input: 'under_score.com', want: null },
  { input: 'example.c', want: null },
  { input: 'example.123', want: null },
  { input: '192.168.1.1', want: null },
  { input: 'example.com.', want: null },
  { input: 'exa mple.com', want: null },
  { input: 'xn--zz.com', want: null },
];

test('normalizeDomain', async (t) => {
  for (const c of domainCases) {
    await t.test(JSON.stringify(c.input).slice(0, 60), () => assert.equal(normalizeDomain(c.input), c.want));
  }
});

const hostCases: Array<{ url: string; want: string | null }> = [
  { url: 'https://www.Example.com/a?b=c', want: 'example.com' },
  { url: 'http://blog.example.com:8080/', want: 'blog.example.com' },
  { url: 'https://example.com./', want: 'example.com' },
  { url: 'https://www.com/', want: 'www.com' },
  { url: 'https://münchen.de/', want: 'xn--mnchen-3ya.de' },
  { url: 'http://localhost:5173/x', want: 'localhost' },
  { url: 'http://127.0.0.1:8080/', want: '127.0.0.1' },
  { url: 'http://blog.localhost/', want: 'blog.localhost' },
  { url: 'file:///etc/passwd', want: null },
  { url: 'mailto:a@b.com', want: null },
  { url: 'example.com', want: null },
  { url: '', want: null },
];

test('hostOfUrl', async (t) => {
  for (const c of hostCases) {
    await t.test(c.url || '(empty)', () => assert.equal(hostOfUrl(c.url), c.want));
  }
});
