import { test } from 'node:test';
import assert from 'node:assert/strict';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { Qr } from '../src/resources/qrs.ts';
import { ownedBy, snapshotOf, testApp } from './helpers.ts';

// jsqr is a CommonJS bundle whose typings only declare the `default` property.
const jsQR = jsQRModule.default;
const CRLF = '\r\n';

// Issue 16, item 6: QR data in the real product's keys is taken, and the image says what it means.
test("QR codes created with the real product's data keys encode the right text", async (t) => {
  const app = await testApp({ rateLimit: 0 });
  const user = await app.makeUser('qr');
  const add = (body: unknown) => app.call('POST', '/api/qr/add', { key: user.key, body });
  const decoded = async (link: string) => {
    const res = await app.app.request(`${new URL(link).pathname}?size=400`);
    assert.equal(res.status, 200);
    const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
  };

  const cases: { name: string; type: string; data: unknown; payload: string; stored: unknown }[] = [
    {
      name: 'wifi: ssid, pass and a lowercase encryption',
      type: 'wifi',
      data: { ssid: 'Cafe;Net', pass: 'p:w', encryption: 'wpa' },
      payload: 'WIFI:T:WPA;S:Cafe\\;Net;P:p\\:w;;',
      stored: { ssid: 'Cafe;Net', password: 'p:w', encryption: 'WPA' },
    },
    {
      name: 'wifi: an empty encryption means by the password',
      type: 'wifi',
      data: { ssid: 'Open', pass: '', encryption: '' },
      payload: 'WIFI:T:nopass;S:Open;;',
      stored: { ssid: 'Open', password: '', encryption: 'nopass' },
    },
    {
      name: 'email: the bare address',
      type: 'email',
      data: 'jane@example.com',
      payload: 'mailto:jane@example.com',
      stored: { email: 'jane@example.com' },
    },
    {
      name: 'sms: the bare number',
      type: 'sms',
      data: '+1 (555) 010-0199',
      payload: 'SMSTO:+15550100199:',
      stored: { phone: '+1 (555) 010-0199' },
    },
    {
      name: 'vcard: every key of the real product',
      type: 'vcard',
      data: {
        fname: 'Ada', lname: 'Lovelace', org: 'Engines, Ltd', phone: '+44 20 0000', email: 'ada@example.com', site: 'https://ada.example.com',
        facebook: 'https://facebook.com/ada', instagram: 'https://instagram.com/ada', twitter: 'https://twitter.com/ada', linkedin: 'https://linkedin.com/in/ada',
        street: '12 St James; Square', city: 'London', state: 'Greater London', zip: 'SW1Y 4JH', country: 'United Kingdom',
      },
      payload: [
        'BEGIN:VCARD', 'VERSION:3.0', 'N:Lovelace;Ada', 'FN:Ada Lovelace', 'ORG:Engines\\, Ltd', 'TEL:+44 20 0000', 'EMAIL:ada@example.com',
        'ADR:;;12 St James\\; Square;London;Greater London;SW1Y 4JH;United Kingdom', 'URL:https://ada.example.com',
        'URL;TYPE=facebook:https://facebook.com/ada', 'URL;TYPE=instagram:https://instagram.com/ada', 'URL;TYPE=twitter:https://twitter.com/ada',
        'URL;TYPE=linkedin:https://linkedin.com/in/ada', 'END:VCARD',
      ].join(CRLF),
      stored: {
        name: 'Ada Lovelace', fname: 'Ada', lname: 'Lovelace', company: 'Engines, Ltd', phone: '+44 20 0000', email: 'ada@example.com', website: 'https://ada.example.com',
        facebook: 'https://facebook.com/ada', instagram: 'https://instagram.com/ada', twitter: 'https://twitter.com/ada', linkedin: 'https://linkedin.com/in/ada',
        street: '12 St James; Square', city: 'London', state: 'Greater London', zip: 'SW1Y 4JH', country: 'United Kingdom',
      },
    },
    {
      name: 'vcard: a last name alone; our keys win over the product spelling of the same field',
      type: 'vcard',
      data: { lname: 'Curie', company: 'Institut', org: 'ignored' },
      payload: ['BEGIN:VCARD', 'VERSION:3.0', 'N:Curie;', 'FN:Curie', 'ORG:Institut', 'END:VCARD'].join(CRLF),
      stored: { name: 'Curie', lname: 'Curie', company: 'Institut' },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await add({ type: c.type, data: c.data });
      assert.equal(r.status, 200, r.text);
      assert.equal(await decoded(r.body.link), c.payload);
      const stored = (await app.store.get<Qr>('qrs', r.body.id))!;
      assert.deepEqual(stored.data, c.stored);
    });
  }

  await t.test('bad data in the real keys is refused with a message naming the field, and nothing is stored', async () => {
    const before = await snapshotOf(app.store, 'qrs');
    const refused: [unknown, string][] = [
      [{ type: 'wifi', data: { ssid: 'a', pass: 'p', encryption: 'WPA-EAP' } }, 'data.encryption: Must be one of WPA, WEP, nopass.'],
      [{ type: 'wifi', data: { ssid: 'a', pass: 12345678 } }, 'data.password: Expected a string.'],
      [{ type: 'email', data: 'not an address' }, 'data.email: Please enter a valid email.'],
      [{ type: 'sms', data: 'text me' }, 'data.phone: Please enter a valid phone number.'],
      [{ type: 'sms', data: '' }, 'data.phone: Please enter a valid phone number.'],
      [{ type: 'vcard', data: { fname: 'Ada', linkedin: 'javascript:alert(1)' } }, 'data.linkedin: Please enter a valid URL: it must start with http:// or https://.'],
      [{ type: 'vcard', data: { fname: '', lname: ' ' } }, 'data.name: This field must not be empty.'],
      [{ type: 'vcard', data: { fname: 'Ada', zip: 'z'.repeat(21) } }, 'data.zip: Must be at most 20 characters.'],
    ];
    for (const [body, message] of refused) {
      const r = await add(body);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message }], JSON.stringify(body));
    }
    assert.equal(await snapshotOf(app.store, 'qrs'), before);
    assert.equal((await ownedBy(app.store, 'qrs', user.id)).length, cases.length);
  });
});
