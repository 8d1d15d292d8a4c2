import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

test('bio pages', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const add = (body: unknown, key = alice.key) => call('POST', '/api/bio/add', { key, body });

  await t.test('add without alias generates a free 6-character one and answers id and link', async () => {
    const r = await add({ name: 'About me' });
    assert.equal(r.status, 200, r.text);
    const stored = (await store.get('bios', r.body.id))!;
    assert.match(String(stored.alias), /^[A-Za-z0-9]{6}$/);
    assert.deepEqual(r.body, { error: 0, id: r.body.id, link: `http://sho.rt/u/${stored.alias}` });
    const empty = { description: '', avatar: '', theme: 'light', links: [] };
    assert.deepEqual({ ...stored }, { id: r.body.id, userId: alice.id, date: '2026-11-21 10:00:00', name: 'About me', alias: stored.alias, channels: [], ...empty });
    const got = await call('GET', `/api/bio/${r.body.id}`, { key: alice.key });
    assert.deepEqual(got.body, { error: 0, data: { id: r.body.id, name: 'About me', alias: stored.alias, link: `http://sho.rt/u/${stored.alias}`, ...empty, date: '2026-11-21 10:00:00' } });
  });

  await t.test('aliases are unique across the server, whatever the case', async () => {
    assert.equal((await add({ name: 'Mine', alias: 'jane' })).status, 200);
    for (const [alias, key] of [['jane', bob.key], ['JANE', alice.key]] as const) {
      const before = await snapshotOf(store, 'bios');
      const r = await add({ name: 'Copy', alias }, key);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message: 'That alias is taken. Please choose another one.' }], alias);
      assert.equal(await snapshotOf(store, 'bios'), before);
    }
  });

  await t.test('invalid names, aliases, descriptions, avatars, themes and links are refused, storing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'Bio page name must be 2 to 100 characters.'],
      [{ name: 'n'.repeat(101) }, 'Bio page name must be 2 to 100 characters.'],
      [{ name: 'Fine', alias: 'ab' }, 'Alias must be 3 to 64 letters, digits, dashes or underscores.'],
      [{ name: 'Fine', alias: 'a b c' }, 'Alias must be 3 to 64 letters, digits, dashes or underscores.'],
      [{ name: 'Fine', description: 'd'.repeat(1001) }, 'Bio page description must be at most 1000 characters.'],
      [{ name: 'Fine', avatar: 'javascript:alert(1)' }, 'Avatar must start with http:// or https:// (or be empty).'],
      [{ name: 'Fine', avatar: 'data:image/png;base64,AAAA' }, 'Avatar must start with http:// or https:// (or be empty).'],
      [{ name: 'Fine', theme: 'neon' }, 'Invalid theme: must be one of light, dark, ocean, sunset.'],
      [{ name: 'Fine', links: 'https://example.com' }, 'Links must be a list of {title, url}.'],
      [{ name: 'Fine', links: [{ title: 'x', url: 'javascript:alert(1)' }] }, 'Please enter a valid URL: it must start with http:// or https://.'],
      [{ name: 'Fine', links: [{ title: 'x' }] }, 'Missing required parameter: links.0.url'],
      [{ name: 'Fine', links: [{ title: 't'.repeat(101), url: 'https://example.com/' }] }, 'A bio link title must be at most 100 characters.'],
      [{ name: 'Fine', links: Array.from({ length: 51 }, (_, i) => ({ title: `L${i}`, url: `https://example.com/${i}` })) }, 'A bio page has at most 50 links.'],
    ];
    const before = await snapshotOf(store, 'bios');
    for (const [body, message] of cases) {
      const r = await add(body);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message }], JSON.stringify(body));
    }
    assert.equal(await snapshotOf(store, 'bios'), before);
  });

  await t.test('update may keep its own alias but not take another', async () => {
    const id = (await add({ name: 'Second', alias: 'second' })).body.id;
    const same = await call('PUT', `/api/bio/${id}/update`, { key: alice.key, body: { alias: 'SECOND' } });
    assert.deepEqual([same.status, same.body], [200, { error: 0, message: 'Bio page has been updated successfully.' }]);
    assert.equal((await store.get('bios', id))!.alias, 'SECOND');
    const before = await snapshotOf(store, 'bios');
    const taken = await call('PUT', `/api/bio/${id}/update`, { key: alice.key, body: { alias: 'jane' } });
    assert.deepEqual([taken.status, taken.body], [400, { error: 1, message: 'That alias is taken. Please choose another one.' }]);
    assert.equal(await snapshotOf(store, 'bios'), before);
  });
});

test('the link the API gives a bio opens its page: avatar, name, description and links in its theme, escaped, with the pages\' headers', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const body = {
    name: 'Ada <b>Lovelace</b>',
    alias: 'ada',
    description: 'Maths & engines.\nSecond line "quoted"',
    avatar: 'https://img.example.net/ada.png',
    theme: 'dark',
    links: [
      { title: 'My <i>notes</i>', url: 'https://example.com/notes?a=1&b=2' },
      { url: 'http://example.org/plain' },
    ],
  };
  const made = await call('POST', '/api/bio/add', { key: alice.key, body });
  assert.equal(made.status, 200, made.text);
  assert.equal(made.body.link, 'http://sho.rt/u/ada');
  const stored = (await store.get('bios', made.body.id))!;
  assert.deepEqual([stored.description, stored.avatar, stored.theme, stored.links], [body.description, body.avatar, 'dark', [{ title: 'My <i>notes</i>', url: 'https://example.com/notes?a=1&b=2' }, { title: '', url: 'http://example.org/plain' }]]);
  const single = await call('GET', `/api/bio/${made.body.id}`, { key: alice.key });
  assert.deepEqual(single.body.data.links, stored.links);

  await t.test('the page', async () => {
    const page = await call('GET', '/u/ada', { key: null, headers: { accept: 'text/html' } });
    assert.equal(page.status, 200, page.text);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /img-src data: https:\/\/img\.example\.net(;|$)/, 'the icon and the avatar\'s origin, nothing else');
    assert.match(csp, /form-action 'none'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    assert.match(page.text, /<title>Ada &lt;b&gt;Lovelace&lt;\/b&gt;<\/title>/);
    assert.match(page.text, /<h1>Ada &lt;b&gt;Lovelace&lt;\/b&gt;<\/h1>/);
    assert.match(page.text, /<img class="avatar" src="https:\/\/img\.example\.net\/ada\.png" alt="" referrerpolicy="no-referrer">/);
    assert.match(page.text, /<p class="about">Maths &amp; engines\.\nSecond line &quot;quoted&quot;<\/p>/);
    assert.match(page.text, /<a class="btn" href="https:\/\/example\.com\/notes\?a=1&amp;b=2" rel="noopener noreferrer nofollow ugc">My &lt;i&gt;notes&lt;\/i&gt;<\/a>/);
    assert.match(page.text, /<a class="btn" href="http:\/\/example\.org\/plain" [^>]*>http:\/\/example\.org\/plain<\/a>/, 'a link without a title shows its URL');
    assert.match(page.text, /body\{background:#0d1117;color:#e6edf3\}/, 'the dark theme');
    assert.doesNotMatch(page.text, /<b>|<i>/);
  });

  await t.test('another letter case of the alias goes to the page\'s one URL; an unknown alias is the 404 page', async () => {
    const other = await call('GET', '/u/ADA', { key: null });
    assert.deepEqual([other.status, other.headers.get('location')], [302, '/u/ada']);
    for (const path of ['/u/nobody', '/u/ad']) {
      const missing = await call('GET', path, { key: null });
      assert.equal(missing.status, 404, path);
      assert.match(missing.text, /<h1>Page not found<\/h1>/, path);
    }
  });

  await t.test('what an import or an older version stored: no new fields, a link that is not http(s), an unknown theme', async () => {
    const old = await store.transaction((tx) => tx.insert('bios', { userId: alice.id, name: 'Old page', alias: 'old-page', channels: [], date: '2026-01-01 00:00:00' }));
    const plain = await call('GET', '/u/old-page', { key: null });
    assert.equal(plain.status, 200);
    assert.match(plain.text, /<h1>Old page<\/h1>[\s\S]*No links yet\./);
    assert.doesNotMatch(plain.text, /<img/);
    assert.match(plain.text, /body\{background:#f6f8fa/, 'the light theme');
    const odd = { theme: 'neon', avatar: 'javascript:alert(1)', links: [{ title: 'Run me', url: 'javascript:alert(1)' }, { title: 'Data', url: 'data:text/html,<script>alert(1)</script>' }] };
    await store.transaction((tx) => tx.update('bios', old.id, odd));
    const page = await call('GET', '/u/old-page', { key: null });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /javascript:|data:text|<script>alert/, 'no such URL becomes a link or an image');
    assert.match(page.text, /<span class="btn">Run me<\/span>/, 'its title is shown, not clickable');
    assert.match(page.text, /body\{background:#f6f8fa/, 'an unknown theme is the light one');
    assert.doesNotMatch(page.headers.get('content-security-policy') ?? '', /javascript/);
  });

  await t.test('on a branded domain a bio is not found (bios live on the main host); the domain\'s 404 redirect applies', async () => {
    await store.transaction((tx) => tx.insert('domains', { userId: alice.id, domain: 'https://go.brand.test', redirectroot: '', redirect404: '', date: '2026-11-21 10:00:00' }));
    const plain = await call('GET', '/u/ada', { key: null, headers: { host: 'go.brand.test' } });
    assert.equal(plain.status, 404);
    assert.match(plain.text, /Page not found/);
    await store.transaction((tx) => tx.insert('domains', { userId: alice.id, domain: 'https://to.brand.test', redirectroot: '', redirect404: 'https://brand.test/404', date: '2026-11-21 10:00:00' }));
    const sent = await call('GET', '/u/ada', { key: null, headers: { host: 'to.brand.test' } });
    assert.deepEqual([sent.status, sent.headers.get('location')], [302, 'https://brand.test/404']);
  });
});
