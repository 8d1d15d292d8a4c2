import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { SCREENS, assertNoHorizontalOverflow, chromiumPresent, launchBrowser, openAt, screenshot } from './browser.ts';
import { LIVE_ADMIN_KEY, liveServer, visit } from './live-server.ts';

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('the dashboard as a person uses it, on a laptop and on a phone: sign in, create a link with options and open it, edit, QR download, bulk delete, a website and its statistics, an API key, sign out', { timeout: 120_000 }, async (t) => {
    const server = await liveServer(':memory:');
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const user = (await server.api('POST', '/api/user/add', { username: 'dana', email: 'dana@example.com', password: 'secret-pw' })).body.data;
    const campaign = (await server.api('POST', '/api/campaign/add', { name: 'Autumn' }, user.apikey)).body.id as number;
    assert.ok(campaign);

    for (const screen of SCREENS) {
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;
      const page = await openAt(browser.context, screen);
      page.on('dialog', (dialog) => void dialog.accept());
      const errors: string[] = [];
      // A refused form answers 400 on purpose; what must not happen is a script or style the CSP refuses, or a script error.
      page.on('console', (m) => m.type() === 'error' && !/status of 400/.test(m.text()) && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));

      await t.test(`sign in, ${at}`, async () => {
        await page.goto(`${server.url}/app`);
        assert.equal(new URL(page.url()).pathname, '/app/login');
        await assertNoHorizontalOverflow(page, `sign-in, ${at}`);
        await screenshot(page, 'dashboard-login', screen);
        await page.getByLabel('Username or email').fill('dana');
        await page.getByLabel('Password', { exact: true }).fill('secret-pw');
        await Promise.all([page.waitForURL(/\/app\/links$/), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Links');
      });

      const alias = `autumn-${screen.name}`;
      await t.test(`create a link with options and open it, ${at}`, async () => {
        await Promise.all([page.waitForURL(/\/app\/links\/new$/), page.getByRole('link', { name: 'New link' }).click()]);
        await assertNoHorizontalOverflow(page, `new link, ${at}`);
        await page.getByLabel('Long URL').fill('https://example.com/autumn');
        await page.getByLabel('Alias (optional)').fill(alias);
        await page.getByText('Targeting: country, device, language').click();
        await page.getByLabel('Country (code or English name) 1').fill('DE');
        await page.locator('input[name=geo_link]').first().fill('https://example.de/autumn');
        await page.getByText('Campaign, channel, pixels').click();
        await page.getByLabel('Campaign', { exact: true }).selectOption(String(campaign));
        await screenshot(page, 'dashboard-new-link', screen);
        await Promise.all([page.waitForURL(/\/app\/links\/\d+\?done=created$/), page.getByRole('button', { name: 'Create the link' }).click()]);
        assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', new RegExp(`/${alias}$`));
        await page.locator('img.qr').waitFor();
        assert.ok(await page.locator('img.qr').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the QR preview loads');
        assert.equal(await page.getByRole('button', { name: 'Copy the short URL' }).isVisible(), true, 'the script shows the copy button');
        await assertNoHorizontalOverflow(page, `link page, ${at}`);
        await screenshot(page, 'dashboard-link', screen);
        // Opened as a visitor would: the short URL sends a German visitor to the country's target.
        const res = await visit(`${server.url}/${alias}`, { 'cf-ipcountry': 'DE' });
        assert.equal(res.status, 302);
        assert.equal(res.headers.get('location'), 'https://example.de/autumn');
      });

      await t.test(`QR download, ${at}`, async () => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PNG' }).click()]);
        assert.equal(download.suggestedFilename(), `${alias}-qr.png`);
        const bytes = await readFile((await download.path())!);
        assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
      });

      await t.test(`edit, ${at}`, async () => {
        await Promise.all([page.waitForURL(/\/edit$/), page.getByRole('link', { name: 'Edit' }).click()]);
        assert.equal(await page.getByLabel('Long URL').inputValue(), 'https://example.com/autumn');
        await page.getByLabel('Long URL').fill('not a URL');
        await page.getByRole('button', { name: 'Save the link' }).click();
        await page.locator('#url-error').waitFor();
        assert.match((await page.locator('#url-error').textContent()) ?? '', /valid URL/);
        assert.equal(await page.getByLabel('Long URL').inputValue(), 'not a URL', 'the form keeps what was typed');
        await page.getByLabel('Long URL').fill('https://example.com/autumn-sale');
        await Promise.all([page.waitForURL(/done=saved$/), page.getByRole('button', { name: 'Save the link' }).click()]);
        assert.match((await page.locator('main').textContent()) ?? '', /Sends to https:\/\/example\.com\/autumn-sale/);
      });

      await t.test(`bulk delete, ${at}`, async () => {
        for (const n of [1, 2]) assert.equal((await server.api('POST', '/api/url/add', { url: `https://example.com/spare/${n}`, custom: `spare-${n}-${screen.name}` }, user.apikey)).status, 200);
        await page.goto(`${server.url}/app/links?q=spare`);
        await assertNoHorizontalOverflow(page, `list, ${at}`);
        await screenshot(page, 'dashboard-links', screen);
        await page.getByRole('checkbox', { name: `Select spare-1-${screen.name}` }).check();
        await page.getByRole('checkbox', { name: `Select spare-2-${screen.name}` }).check();
        await Promise.all([page.waitForURL(/done=bulk-deleted$/), page.getByRole('button', { name: 'Delete selected' }).click()]);
        assert.match((await page.locator('main').textContent()) ?? '', /No link matches/);
        const left = await server.api('GET', '/api/urls?q=spare', undefined, user.apikey);
        assert.equal(left.body.data.urls.length, 0);
      });

      await t.test(`add a website, see its snippet and an event in its statistics, ${at}`, async () => {
        const domain = `site-${screen.name}.example.com`;
        await page.goto(`${server.url}/app/websites`);
        await page.getByLabel('Domain').fill(domain);
        await page.getByLabel('Who sees the statistics page').selectOption('0');
        await Promise.all([page.waitForURL(/\/app\/websites\/\d+\?done=created$/), page.getByRole('button', { name: 'Add the website' }).click()]);
        assert.match((await page.locator('code.secret').textContent()) ?? '', /<script defer src=".*\/js\/script\.js"/);
        assert.equal(await page.getByRole('button', { name: 'Copy the snippet' }).isVisible(), true, 'the script shows the copy button');
        const sent = await fetch(`${server.url}/api/event`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' }, body: JSON.stringify({ page: `https://${domain}/welcome` }) });
        assert.equal(sent.status, 202);
        // Counts are flushed on a timer: the page shows the event once they are.
        for (let i = 0; i < 50 && !/\/welcome/.test((await page.locator('main').textContent()) ?? ''); i++) {
          await new Promise((r) => setTimeout(r, 200));
          await page.reload();
        }
        assert.match((await page.locator('main').textContent()) ?? '', /\/welcome/);
        await assertNoHorizontalOverflow(page, `website, ${at}`);
        await screenshot(page, 'dashboard-website', screen);
      });

      await t.test(`create an API key, seen once, ${at}`, async () => {
        await page.goto(`${server.url}/app/account/keys`);
        await page.getByLabel('Name').fill(`Deploy ${screen.name}`);
        await page.getByRole('checkbox', { name: 'links:read', exact: true }).check();
        await page.getByRole('button', { name: 'Make the key' }).click();
        const key = ((await page.locator('code.secret').textContent()) ?? '').trim();
        assert.match(key, /^sk_/);
        assert.equal(await page.getByRole('button', { name: 'Copy the key' }).isVisible(), true, 'the script shows the copy button');
        await assertNoHorizontalOverflow(page, `API keys, ${at}`);
        await screenshot(page, 'dashboard-keys', screen);
        assert.equal((await server.api('GET', '/api/urls', undefined, key)).status, 200, 'the key works');
      });

      await t.test(`sign out, ${at}`, async () => {
        await page.goto(`${server.url}/app/account`);
        await assertNoHorizontalOverflow(page, `account, ${at}`);
        await Promise.all([page.waitForURL(/\/app\/login$/), page.getByRole('button', { name: /^Sign out dana/ }).click()]);
        await page.goto(`${server.url}/app/links`);
        assert.equal(new URL(page.url()).pathname, '/app/login');
      });

      await t.test(`the admin disables the user with a reason, and enables them again, ${at}`, async () => {
        await page.getByRole('textbox', { name: 'API key' }).fill(LIVE_ADMIN_KEY);
        await Promise.all([page.waitForURL(/\/app\/links$/), page.getByRole('button', { name: 'Sign in with the key' }).click()]);
        await page.goto(`${server.url}/app/admin/users?q=dana`);
        await page.getByLabel('Reason for disabling dana').fill('Spam links');
        await Promise.all([page.waitForURL(/done=disabled/), page.getByRole('button', { name: 'Disable dana' }).click()]);
        assert.match((await page.locator('main').textContent()) ?? '', /Disabled since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: Spam links/);
        await assertNoHorizontalOverflow(page, `users with a disabled one, ${at}`);
        await screenshot(page, 'dashboard-users-disabled', screen);
        const refused = await server.api('GET', '/api/urls', undefined, user.apikey);
        assert.equal(refused.status, 403, 'her key is refused');
        await Promise.all([page.waitForURL(/done=enabled/), page.getByRole('button', { name: 'Enable dana' }).click()]);
        assert.equal((await server.api('GET', '/api/urls', undefined, user.apikey)).status, 200, 'her key works again');
        await Promise.all([page.waitForURL(/\/app\/login$/), page.getByRole('button', { name: /^Sign out/ }).click()]);
        assert.deepEqual(errors, [], 'no console or script errors (CSP refusals included)');
      });
      await page.close();
    }
  });
}
