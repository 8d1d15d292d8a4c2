import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripQueryParams, utmCampaign } from '../src/visits/url-params.ts';

const stripCases: Array<{ name: string; url: string; exclude: string[]; want: string }> = [
  { name: 'the documented example', url: 'https://a.com/x?utm_source=y&id=3', exclude: ['utm_source'], want: '/x?id=3' },
  { name: 'nothing excluded', url: 'https://a.com/x?b=2&a=1', exclude: [], want: '/x?b=2&a=1' },
  { name: 'all excluded with &', url: 'https://a.com/x?b=2&a=1', exclude: ['&'], want: '/x' },
  { name: 'several names, order kept', url: 'https://a.com/p?a=1&utm_source=s&b=2&fbclid=f&c=3', exclude: ['utm_source', ' fbclid ', ''], want: '/p?a=1&b=2&c=3' },
  { name: 'repeated name removed everywhere', url: 'https://a.com/?t=1&k=v&t=2', exclude: ['t'], want: '/?k=v' },
  { name: 'only excluded params leave no ?', url: 'https://a.com/x?utm_source=y', exclude: ['utm_source'], want: '/x' },
  { name: 'encoded name matched', url: 'https://a.com/x?my%20key=1&z=2', exclude: ['my key'], want: '/x?z=2' },
  { name: 'encoding of the rest kept', url: 'https://a.com/x?q=a+b%26c&drop', exclude: ['drop'], want: '/x?q=a+b%26c' },
  { name: 'names are case-sensitive', url: 'https://a.com/x?ID=1', exclude: ['id'], want: '/x?ID=1' },
  { name: 'empty pairs dropped', url: 'https://a.com/x?&a=1&&b=2&', exclude: [], want: '/x?a=1&b=2' },
  { name: 'fragment dropped', url: 'https://a.com/x?a=1#section', exclude: [], want: '/x?a=1' },
  { name: 'no path', url: 'https://a.com', exclude: [], want: '/' },
  { name: 'relative path', url: '/docs/start?ref=nav', exclude: ['ref'], want: '/docs/start' },
  { name: 'malformed escape in a name', url: 'https://a.com/x?%E0%A4%A=1&b=2', exclude: ['b'], want: '/x?%E0%A4%A=1' },
  { name: 'unparseable', url: 'http://', exclude: [], want: '' },
  { name: 'every utm_* goes without being excluded', url: 'https://a.com/x?utm_source=n&a=1&utm_medium=e&utm_campaign=c&utm_term=t&utm_content=k&utm_id=9&b=2', exclude: [], want: '/x?a=1&b=2' },
  { name: 'utm_ in any letter case, encoded too', url: 'https://a.com/x?UTM_Source=n&utm%5Fmedium=e&a=1', exclude: [], want: '/x?a=1' },
  { name: 'only names starting with utm_', url: 'https://a.com/x?utm=1&utmost=2&my_utm_x=3&utm_=4', exclude: [], want: '/x?utm=1&utmost=2&my_utm_x=3' },
  { name: 'utm_* and excluded names together', url: 'https://a.com/x?fbclid=f&utm_source=s&id=3', exclude: ['fbclid'], want: '/x?id=3' },
];

test('stripQueryParams', async (t) => {
  for (const c of stripCases) {
    await t.test(c.name, () => assert.equal(stripQueryParams(c.url, c.exclude), c.want));
  }
});

const campaignCases: Array<{ name: string; url: string; want: string | null }> = [
  { name: 'present', url: 'https://a.com/?utm_campaign=spring_sale&utm_source=x', want: 'spring_sale' },
  { name: 'decoded', url: 'https://a.com/?utm_campaign=Spring%20Sale', want: 'Spring Sale' },
  { name: 'plus as space, trimmed', url: 'https://a.com/?utm_campaign=+summer+', want: 'summer' },
  { name: 'first of several', url: 'https://a.com/?utm_campaign=a&utm_campaign=b', want: 'a' },
  { name: 'empty', url: 'https://a.com/?utm_campaign=', want: null },
  { name: 'missing', url: 'https://a.com/?utm_source=x', want: null },
  { name: 'relative', url: '/x?utm_campaign=c1', want: 'c1' },
  { name: 'unparseable', url: 'http://', want: null },
];

test('utmCampaign', async (t) => {
  for (const c of campaignCases) {
    await t.test(c.name, () => assert.equal(utmCampaign(c.url), c.want));
  }
});
