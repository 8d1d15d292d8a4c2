import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIRECT_LABEL, referrerLabel } from '../src/visits/referrer.ts';
import { DIRECT_SOURCE, namedSource, sourceLabel } from '../src/visits/sources.ts';
import { utmOf } from '../src/visits/utm.ts';

test('namedSource: referrer hosts grouped into named sources, subdomains and country domains included', () => {
  const cases: [string, string | null][] = [
    ['google.com', 'Google'],
    ['www.google.co.uk', 'Google'],
    ['google.de', 'Google'],
    ['news.google.com', 'Google'],
    ['mail.google.com', 'Gmail'],
    ['bing.com', 'Bing'],
    ['cn.bing.com', 'Bing'],
    ['duckduckgo.com', 'DuckDuckGo'],
    ['search.yahoo.co.jp', 'Yahoo'],
    ['yandex.ru', 'Yandex'],
    ['m.facebook.com', 'Facebook'],
    ['l.facebook.com', 'Facebook'],
    ['l.instagram.com', 'Instagram'],
    ['t.co', 'X/Twitter'],
    ['x.com', 'X/Twitter'],
    ['mobile.twitter.com', 'X/Twitter'],
    ['linkedin.com', 'LinkedIn'],
    ['lnkd.in', 'LinkedIn'],
    ['old.reddit.com', 'Reddit'],
    ['youtu.be', 'YouTube'],
    ['m.youtube.com', 'YouTube'],
    ['github.com', 'GitHub'],
    ['news.ycombinator.com', 'Hacker News'],
    ['com.google.android.gm', 'Gmail'],
    // Not theirs: a name inside another domain, a look-alike, an unknown host.
    ['google.example.com', null],
    ['googleusercontent.com', null],
    ['notfacebook.com', null],
    ['ycombinator.com', null],
    ['blog.example.net', null],
  ];
  for (const [host, want] of cases) assert.equal(namedSource(host), want, host);
});

test("sourceLabel: the referrer's named source or its host; without one, an Android app, else utm_source, else Direct / None", () => {
  const label = (referrer: string | undefined, utmSource: string | null = null) => sourceLabel(referrerLabel(referrer, ['example.com']), utmSource, referrer);
  const cases: [string | undefined, string | null, string][] = [
    ['https://www.google.com/search?q=x', null, 'Google'],
    ['https://www.google.com/', 'newsletter', 'Google'],
    ['https://blog.example.net/post', null, 'blog.example.net'],
    ['https://www.example.com/page', null, DIRECT_SOURCE],
    [undefined, null, DIRECT_SOURCE],
    ['', 'newsletter', 'newsletter'],
    [undefined, 'FB', 'Facebook'],
    [undefined, 'hacker-news', 'Hacker News'],
    [undefined, 'twitter', 'X/Twitter'],
    ['android-app://com.google.android.gm/', null, 'Gmail'],
    ['android-app://com.example.unknown/', 'mail', 'mail'],
  ];
  for (const [referrer, utm, want] of cases) assert.equal(label(referrer, utm), want, `${referrer} ${utm}`);
  assert.equal(DIRECT_LABEL, 'Direct, email and other', 'the referrer keeps its own label');
});

test('utmOf: the five tags, trimmed and decoded, names in any case, the first of a repeated tag; null without any', () => {
  assert.deepEqual(utmOf('https://example.com/p?utm_source=news+letter&UTM_Medium=e%6Dail&utm_campaign=%20fall%20&utm_term=a&utm_content=b&utm_source=second#utm_id=x'), {
    source: 'news letter',
    medium: 'email',
    campaign: 'fall',
    term: 'a',
    content: 'b',
  });
  assert.deepEqual(utmOf('/abc?utm_source=x&utm_medium='), { source: 'x', medium: null, campaign: null, term: null, content: null });
  assert.deepEqual(utmOf('/abc?utm_campaign=100%&utm_term=%ZZ'), { source: null, medium: null, campaign: '100%', term: '%ZZ', content: null }, 'a malformed escape is kept');
  assert.equal(utmOf('/abc?utm_source=x'.replace('x', 'y'.repeat(300)))?.source?.length, 255);
  for (const none of ['/abc', '/abc?q=1', '/abc?utmost=1&utm_id=7', '/abc#utm_source=x', '/abc?utm_source=']) assert.equal(utmOf(none), null, none);
});
