import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countryLabel, countryName } from '../src/visits/country.ts';

const cases: Array<{ code: string | undefined; name: string; label: string }> = [
  { code: 'US', name: 'United States', label: 'US:United States' },
  { code: 'de', name: 'Germany', label: 'DE:Germany' },
  { code: ' gb ', name: 'United Kingdom', label: 'GB:United Kingdom' },
  { code: 'XK', name: 'Kosovo', label: 'XK:Kosovo' },
  { code: 'XX', name: 'Unknown', label: 'Unknown' },
  { code: 'ZZ', name: 'Unknown', label: 'Unknown' },
  { code: 'T1', name: 'Unknown', label: 'Unknown' },
  { code: 'USA', name: 'Unknown', label: 'Unknown' },
  { code: '', name: 'Unknown', label: 'Unknown' },
  { code: undefined, name: 'Unknown', label: 'Unknown' },
];

test('countryName and countryLabel', async (t) => {
  for (const c of cases) {
    await t.test(String(c.code), () => {
      assert.equal(countryName(c.code), c.name);
      assert.equal(countryLabel(c.code), c.label);
    });
  }
});
