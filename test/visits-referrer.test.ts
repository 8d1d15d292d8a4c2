import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIRECT_LABEL, referrerLabel, socialNetworkOf } from '../src/visits/referrer.ts';

const labelCases: Array<{ name: string; referrer: string | undefined; own?: string[]; want: string }> = [
  { name: 'missing', referrer: undefined, want: DIRECT_LABEL },
  { name: 'empty', referrer: '', want: DIRECT_LABEL },
  { name: 'not a URL', referrer: 'google.com', want: DIRECT_LABEL },
  { name: 'app referrer', referrer: 'android-app://com.google.android.gm/', want: DIRECT_LABEL },
  { name: 'plain host', referrer: 'https://news.ycombinator.com/item?id=1', want: 'news.ycombinator.com' },
  { name: 'www and case stripped', referrer: 'HTTPS://WWW.Google.COM/search?q=x', want: 'google.com' },
  { name: 'port dropped', referrer: 'http://example.org:8080/a', want: 'example.org' },
  { name: 'trailing dot dropped', referrer: 'https://example.org./', want: 'example.org' },
  { name: 'own host', referrer: 'https://www.mysite.com/page', own: ['mysite.com'], want: DIRECT_LABEL },
  { name: 'own host listed with www', referrer: 'https://mysite.com/page', own: ['WWW.MySite.com'], want: DIRECT_LABEL },
  { name: 'subdomain of own host is external', referrer: 'https://blog.mysite.com/', own: ['mysite.com'], want: 'blog.mysite.com' },
  { name: 'the literal label', referrer: 'https://t.co/abc', want: 't.co' },
];

const socialCases: Array<{ host: string; want: ReturnType<typeof socialNetworkOf> }> = [
  { host: 'facebook.com', want: 'facebook' },
  { host: 'www.facebook.com', want: 'facebook' },
  { host: 'l.facebook.com', want: 'facebook' },
  { host: 'm.facebook.com', want: 'facebook' },
  { host: 'fb.com', want: 'facebook' },
  { host: 'fb.me', want: 'facebook' },
  { host: 'twitter.com', want: 'twitter' },
  { host: 'mobile.twitter.com', want: 'twitter' },
  { host: 't.co', want: 'twitter' },
  { host: 'X.com', want: 'twitter' },
  { host: 'instagram.com', want: 'instagram' },
  { host: 'l.instagram.com', want: 'instagram' },
  { host: 'instagr.am', want: 'instagram' },
  { host: 'linkedin.com', want: 'linkedin' },
  { host: 'lnkd.in', want: 'linkedin' },
  { host: 'notfacebook.com', want: null },
  { host: 'facebook.com.evil.io', want: null },
  { host: 'box.com', want: null },
  { host: '', want: null },
];

test('referrerLabel', async (t) => {
  for (const c of labelCases) {
    await t.test(c.name, () => assert.equal(referrerLabel(c.referrer, c.own), c.want));
  }
  assert.equal(DIRECT_LABEL, 'Direct, email and other');
});

test('socialNetworkOf', async (t) => {
  for (const c of socialCases) {
    await t.test(c.host || '(empty)', () => assert.equal(socialNetworkOf(c.host), c.want));
  }
});
