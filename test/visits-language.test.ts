import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAcceptLanguage, primaryLanguage } from '../src/visits/language.ts';

const cases: Array<{ name: string; header: string | undefined; tags: string[]; primary: string | null }> = [
  { name: 'missing', header: undefined, tags: [], primary: null },
  { name: 'empty', header: '', tags: [], primary: null },
  { name: 'single tag', header: 'fr', tags: ['fr'], primary: 'fr' },
  { name: 'browser default', header: 'en-US,en;q=0.9', tags: ['en-us', 'en'], primary: 'en' },
  { name: 'ordered by q', header: 'de;q=0.5, fr-CA;q=0.9, en;q=0.7', tags: ['fr-ca', 'en', 'de'], primary: 'fr' },
  { name: 'ties keep header order', header: 'es;q=0.8,pt;q=0.8,it', tags: ['it', 'es', 'pt'], primary: 'it' },
  { name: 'wildcard and q=0 dropped', header: '*;q=0.1, ja, ko;q=0', tags: ['ja'], primary: 'ja' },
  { name: 'duplicates dropped', header: 'en, EN;q=0.5, en-gb', tags: ['en', 'en-gb'], primary: 'en' },
  { name: 'underscores normalized', header: 'pt_BR', tags: ['pt-br'], primary: 'pt' },
  { name: 'malformed entries dropped', header: 'en;q=abc, 12, zh-Hant-TW;q=0.3, x;y', tags: ['zh-hant-tw'], primary: 'zh' },
  { name: 'spaces around weights', header: 'nl ; q = 0.4 , sv', tags: ['sv', 'nl'], primary: 'sv' },
  { name: 'only wildcard', header: '*', tags: [], primary: null },
];

test('parseAcceptLanguage and primaryLanguage', async (t) => {
  for (const c of cases) {
    await t.test(c.name, () => {
      assert.deepEqual(parseAcceptLanguage(c.header), c.tags);
      assert.equal(primaryLanguage(c.header), c.primary);
    });
  }
});
