import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from 'qrcode';
import { fitsInQr } from '../src/qr/fits.ts';

const LEVELS = ['L', 'M', 'Q', 'H'] as const;
const UNITS = { ascii: 'a', digits: '7', accented: 'é', mixed: 'A1b-', emoji: '😀' };
// Around the level's byte-mode capacity, where the shortcut ends, and far on both sides (7090 bytes
// of digits: past numeric mode's 7089). Other levels' capacities are mid-range sizes for this one,
// each a whole large symbol to build: they made this file one of the suite's slowest and proved nothing more.
const BYTE_CAPACITY = { L: 2953, M: 2331, Q: 1663, H: 1273 };
const sizesFor = (level: (typeof LEVELS)[number]) => [1, 100, ...[-2, -1, 0, 1, 2].map((d) => BYTE_CAPACITY[level] + d), 4000, 7090];

/** Whether qrcode draws it: the whole symbol, its mask chosen (fitsInQr gives one and draws nothing). */
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
        for (const bytes of sizesFor(level)) {
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
