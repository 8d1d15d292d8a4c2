import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INVALID_QR_DATA, QR_TYPES, parseQrData, qrDataSchemas } from '../src/qr/data.ts';
import { buildQrPayload } from '../src/qr/payload.ts';

const CRLF = '\r\n';

const payloadCases: { name: string; type: string; data: unknown; trackingUrl?: string; expected: string }[] = [
  { name: 'text as is', type: 'text', data: 'Hello, world', expected: 'Hello, world' },
  { name: 'text keeps unicode and newlines', type: 'text', data: 'Grüße ✓\nline 2', expected: 'Grüße ✓\nline 2' },
  { name: 'link without tracking', type: 'link', data: 'https://example.com/a?b=c#d', expected: 'https://example.com/a?b=c#d' },
  {
    name: 'link with tracking URL',
    type: 'link',
    data: 'https://example.com/landing',
    trackingUrl: 'https://sho.rt/qr/abc123',
    expected: 'https://sho.rt/qr/abc123',
  },
  { name: 'tracking URL ignored for text', type: 'text', data: 'plain', trackingUrl: 'https://sho.rt/qr/x', expected: 'plain' },
  { name: 'phone international', type: 'phone', data: '+1 (555) 123-4567', expected: 'tel:+15551234567' },
  { name: 'phone national', type: 'phone', data: '030 1234-567', expected: 'tel:0301234567' },
  {
    name: 'sms with message',
    type: 'sms',
    data: { phone: '+44 20 7946 0958', message: 'Hi: see you; ok' },
    expected: 'SMSTO:+442079460958:Hi: see you; ok',
  },
  { name: 'sms without message', type: 'sms', data: { phone: '+1 555 0100' }, expected: 'SMSTO:+15550100:' },
  {
    name: 'email with subject and body',
    type: 'email',
    data: { email: 'jane@example.com', subject: 'Hello & welcome', body: 'Line 1\nLine 2?' },
    expected: 'mailto:jane@example.com?subject=Hello%20%26%20welcome&body=Line%201%0D%0ALine%202%3F',
  },
  { name: 'email address only', type: 'email', data: { email: 'jane@example.com' }, expected: 'mailto:jane@example.com' },
  {
    name: 'email with empty subject and a body',
    type: 'email',
    data: { email: 'a.b+c@example.co.uk', subject: '', body: 'Hi=you' },
    expected: 'mailto:a.b+c@example.co.uk?body=Hi%3Dyou',
  },
  {
    name: 'vcard with name only',
    type: 'vcard',
    data: { name: 'Jane Doe' },
    expected: ['BEGIN:VCARD', 'VERSION:3.0', 'N:Jane Doe;', 'FN:Jane Doe', 'END:VCARD'].join(CRLF),
  },
  {
    name: 'vcard with every field and escapes',
    type: 'vcard',
    data: {
      name: 'Doe, Jane; PhD',
      phone: '+1 555 0100',
      email: 'jane@example.com',
      company: 'ACME\\Labs',
      title: 'Chief, Things',
      address: '1 Main St\nSpringfield; IL',
      website: 'https://example.com/a,b',
      note: 'line 1\r\nline 2',
    },
    expected: [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'N:Doe\\, Jane\\; PhD;',
      'FN:Doe\\, Jane\\; PhD',
      'ORG:ACME\\\\Labs',
      'TITLE:Chief\\, Things',
      'TEL:+1 555 0100',
      'EMAIL:jane@example.com',
      'ADR:;;1 Main St\\nSpringfield\\; IL;;;;',
      'URL:https://example.com/a,b',
      'NOTE:line 1\\nline 2',
      'END:VCARD',
    ].join(CRLF),
  },
  {
    name: 'vcard omits empty optional fields',
    type: 'vcard',
    data: { name: ' Jo ', phone: '', email: '', company: ' ', website: '', note: '' },
    expected: ['BEGIN:VCARD', 'VERSION:3.0', 'N:Jo;', 'FN:Jo', 'END:VCARD'].join(CRLF),
  },
  {
    name: 'wifi WPA by default, with escapes',
    type: 'wifi',
    data: { ssid: 'Home;Net', password: 'p:a\\s,s"' },
    expected: 'WIFI:T:WPA;S:Home\\;Net;P:p\\:a\\\\s\\,s\\";;',
  },
  {
    name: 'wifi WEP hidden',
    type: 'wifi',
    data: { ssid: 'Lab', password: 'secret', encryption: 'WEP', hidden: true },
    expected: 'WIFI:T:WEP;S:Lab;P:secret;H:true;;',
  },
  { name: 'wifi open by default without password', type: 'wifi', data: { ssid: 'Guest' }, expected: 'WIFI:T:nopass;S:Guest;;' },
  {
    name: 'wifi nopass omits a given password, hidden false omits H',
    type: 'wifi',
    data: { ssid: 'Cafe', password: 'ignored', encryption: 'nopass', hidden: false },
    expected: 'WIFI:T:nopass;S:Cafe;;',
  },
];

test('buildQrPayload formats each type exactly', async (t) => {
  for (const c of payloadCases) {
    await t.test(c.name, () => {
      const parsed = parseQrData(c.type, c.data);
      assert.ok(parsed.ok, `expected valid data, got ${JSON.stringify(parsed)}`);
      const opts = c.trackingUrl === undefined ? {} : { trackingUrl: c.trackingUrl };
      assert.equal(buildQrPayload(parsed.value.type, parsed.value.data, opts), c.expected);
    });
  }
});

const rejectionCases: { name: string; type: string; data: unknown; message: string }[] = [
  { name: 'unknown type', type: 'pdf', data: 'x', message: 'Unknown QR type. Use one of: text, vcard, link, email, phone, sms, wifi.' },
  { name: 'text missing', type: 'text', data: undefined, message: INVALID_QR_DATA },
  { name: 'text as a number', type: 'text', data: 42, message: INVALID_QR_DATA },
  { name: 'text empty', type: 'text', data: '', message: 'data: This field must not be empty.' },
  { name: 'text blank', type: 'text', data: ' \n ', message: 'data: This field must not be empty.' },
  { name: 'text too long', type: 'text', data: 'a'.repeat(2001), message: 'data: Must be at most 2000 characters.' },
  { name: 'link not a URL', type: 'link', data: 'example', message: 'data: Please enter a valid URL: it must start with http:// or https://.' },
  { name: 'link with another scheme', type: 'link', data: 'javascript:alert(1)', message: 'data: Please enter a valid URL: it must start with http:// or https://.' },
  { name: 'link without a host', type: 'link', data: 'http://', message: 'data: Please enter a valid URL.' },
  { name: 'link as an object', type: 'link', data: { url: 'https://x.y' }, message: INVALID_QR_DATA },
  { name: 'phone with letters', type: 'phone', data: '555-CALL-NOW', message: 'data: Please enter a valid phone number.' },
  { name: 'phone with too few digits', type: 'phone', data: '+1', message: 'data: Please enter a valid phone number.' },
  { name: 'phone with + inside', type: 'phone', data: '12+34', message: 'data: Please enter a valid phone number.' },
  { name: 'vcard as a string', type: 'vcard', data: 'Jane', message: INVALID_QR_DATA },
  { name: 'vcard as null', type: 'vcard', data: null, message: INVALID_QR_DATA },
  { name: 'vcard without name', type: 'vcard', data: { phone: '+1 555 0100' }, message: 'data.name: This field is required.' },
  { name: 'vcard name blank', type: 'vcard', data: { name: '  ' }, message: 'data.name: This field must not be empty.' },
  { name: 'vcard bad email', type: 'vcard', data: { name: 'J', email: 'jane@' }, message: 'data.email: Please enter a valid email.' },
  { name: 'vcard bad phone', type: 'vcard', data: { name: 'J', phone: 'call me' }, message: 'data.phone: Please enter a valid phone number.' },
  { name: 'vcard bad website', type: 'vcard', data: { name: 'J', website: 'ftp://x.y' }, message: 'data.website: Please enter a valid URL: it must start with http:// or https://.' },
  { name: 'vcard company not a string', type: 'vcard', data: { name: 'J', company: 5 }, message: 'data.company: Expected a string.' },
  { name: 'vcard note too long', type: 'vcard', data: { name: 'J', note: 'n'.repeat(1001) }, message: 'data.note: Must be at most 1000 characters.' },
  { name: 'email without address', type: 'email', data: { subject: 'Hi' }, message: 'data.email: This field is required.' },
  { name: 'email invalid', type: 'email', data: { email: 'not-an-email' }, message: 'data.email: Please enter a valid email.' },
  { name: 'email as a number', type: 'email', data: 42, message: INVALID_QR_DATA },
  { name: 'email as a string that is no address', type: 'email', data: 'jane@', message: 'data.email: Please enter a valid email.' },
  { name: 'vcard fname not a string', type: 'vcard', data: { lname: 'Doe', fname: 5 }, message: 'data.fname: Expected a string.' },
  { name: 'vcard bad facebook URL', type: 'vcard', data: { fname: 'J', facebook: 'javascript:alert(1)' }, message: 'data.facebook: Please enter a valid URL: it must start with http:// or https://.' },
  { name: 'vcard blank fname and lname', type: 'vcard', data: { fname: ' ', lname: '' }, message: 'data.name: This field must not be empty.' },
  { name: 'wifi pass as a number', type: 'wifi', data: { ssid: 'a', pass: 1234 }, message: 'data.password: Expected a string.' },
  { name: 'wifi unknown encryption name', type: 'wifi', data: { ssid: 'a', pass: 'p', encryption: 'wpa-enterprise' }, message: 'data.encryption: Must be one of WPA, WEP, nopass.' },
  { name: 'sms without phone', type: 'sms', data: { message: 'hi' }, message: 'data.phone: This field is required.' },
  { name: 'sms bad phone', type: 'sms', data: { phone: 'abc' }, message: 'data.phone: Please enter a valid phone number.' },
  { name: 'sms as a string that is no number', type: 'sms', data: 'call me', message: 'data.phone: Please enter a valid phone number.' },
  { name: 'sms as a number', type: 'sms', data: 5550100, message: INVALID_QR_DATA },
  { name: 'wifi without ssid', type: 'wifi', data: { password: 'x' }, message: 'data.ssid: This field is required.' },
  { name: 'wifi empty ssid', type: 'wifi', data: { ssid: '' }, message: 'data.ssid: This field must not be empty.' },
  { name: 'wifi ssid too long', type: 'wifi', data: { ssid: 's'.repeat(33) }, message: 'data.ssid: Must be at most 32 characters.' },
  { name: 'wifi unknown encryption', type: 'wifi', data: { ssid: 'a', encryption: 'WPA3' }, message: 'data.encryption: Must be one of WPA, WEP, nopass.' },
  { name: 'wifi hidden not boolean', type: 'wifi', data: { ssid: 'a', hidden: 'yes' }, message: 'data.hidden: Expected true or false.' },
  { name: 'wifi WPA without password', type: 'wifi', data: { ssid: 'a', encryption: 'WPA' }, message: 'data.password: A password is required for WPA networks.' },
  { name: 'wifi WEP with empty password', type: 'wifi', data: { ssid: 'a', password: '', encryption: 'WEP' }, message: 'data.password: A password is required for WEP networks.' },
  { name: 'wifi as an array', type: 'wifi', data: ['a'], message: INVALID_QR_DATA },
];

test('parseQrData rejects bad data with a message naming the problem', async (t) => {
  for (const c of rejectionCases) {
    await t.test(c.name, () => {
      assert.deepEqual(parseQrData(c.type, c.data), { ok: false, message: c.message });
    });
  }
});

test('parseQrData resolves defaults and drops unknown keys', async (t) => {
  const cases: { name: string; type: string; data: unknown; expected: unknown }[] = [
    { name: 'wifi with password defaults to WPA', type: 'wifi', data: { ssid: 'a', password: 'p' }, expected: { ssid: 'a', password: 'p', encryption: 'WPA' } },
    { name: 'wifi with empty password defaults to nopass', type: 'wifi', data: { ssid: 'a', password: '' }, expected: { ssid: 'a', password: '', encryption: 'nopass' } },
    { name: 'unknown keys are dropped', type: 'sms', data: { phone: '123', extra: true }, expected: { phone: '123' } },
    { name: 'sms as the bare number, as real clients send it', type: 'sms', data: '+1 555 0100', expected: { phone: '+1 555 0100' } },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      assert.deepEqual(parseQrData(c.type, c.data), { ok: true, value: { type: c.type, data: c.expected } });
    });
  }
});

test('there is one schema per QR type', () => {
  assert.deepEqual(Object.keys(qrDataSchemas).sort(), [...QR_TYPES].sort());
});
