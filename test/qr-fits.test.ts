import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from 'qrcode';
import { fitsInQr } from '../src/qr/fits.ts';

const LEVELS = ['L', 'M', 'Q', 'H'] as const;
const UNITS = { ascii: 'a', digits: '7', accented: 'é', mixed: 'A1b-', emoji: '😀' };
// Around each level's byte-mode capacity (2953, 2331, 1663, 1273 bytes), where the shortcut ends.
const SIZES = [1, 100, 1271, 1272, 1273, 1274, 1275, 1661, 1662, 1663, 1664, 1665, 2329, 2330, 2331, 2332, 2333, 2951, 2952, 2953, 2954, 2955, 4000, 7090];

function qrcodeAccepts(payload: string, level: (typeof LEVELS)[number]): boolean {
  try {
    create(payload, { errorCorrectionLevel: level });
    return true;
  } catch {
    return false;
  }
}

test('fitsInQr agrees with building the symbol, on both sides of every capacity', async (t) => {
  for (const level of LEVELS) {
    for (const [name, unit] of Object.entries(UNITS)) {
      await t.test(`${level} ${name}`, () => {
        for (const bytes of SIZES) {
          const payload = unit.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(unit))));
          assert.equal(fitsInQr(payload, level), qrcodeAccepts(payload, level), `${Buffer.byteLength(payload)} bytes`);
        }
      });
    }
  }
});

test('fitsInQr refuses the empty payload, as qrcode does', () => {
  for (const level of LEVELS) assert.equal(fitsInQr('', level), false);
});
