import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { SCREENS, assertNoHorizontalOverflow, chromiumPresent, download, launchBrowser, openAt, screenshot } from './browser.ts';
import { liveServer, visit } from './live-server.ts';

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('QR codes, bio pages and files in the dashboard, on a laptop and on a phone: a Wi-Fi QR code with colours and its downloads, a bio page and its public page, a file uploaded and fetched', { timeout: 300_000 }, async (t) => {
    const server = await liveServer(':memory:');
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const user = (await server.api('POST', '/api/user/add', { username: 'quinn', email: 'quinn@example.com', password: 'secret-pw' })).body.data;
    assert.ok(user.apikey);

    for (const screen of SCREENS) {
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;
      const page = await openAt(browser.context, screen);
      page.on('dialog', (dialog) => void dialog.accept());
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && !/status of 400/.test(m.text()) && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));

      await t.test(`sign in, ${at}`, async () => {
        await page.goto(`${server.url}/app/login`);
        await page.getByLabel('Username or email').fill('quinn');
        await page.getByLabel('Password', { exact: true }).fill('secret-pw');
        await Promise.all([page.waitForURL(/\/app\/links$/), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
      });

      await t.test(`create a Wi-Fi QR code with colours, see it listed, download it, ${at}`, async () => {
        await Promise.all([page.waitForURL(/\/app\/qrs$/), page.getByRole('link', { name: 'QR codes', exact: true }).click()]);
        await Promise.all([page.waitForURL(/\/app\/qrs\/new$/), page.getByRole('link', { name: 'New QR code' }).click()]);
        await page.getByLabel('Type of content').selectOption('wifi');
        await Promise.all([page.waitForURL(/type=wifi$/), page.getByRole('button', { name: 'Show its fields' }).click()]);
        await assertNoHorizontalOverflow(page, `new QR code, ${at}`);
        // A refusal first: WEP without a password, its message beside the password box.
        await page.getByLabel('Network name (SSID)').fill(`Cafe ${screen.name}`);
        await page.getByLabel('Encryption').selectOption('WEP');
        await page.getByRole('button', { name: 'Create the QR code' }).click();
        await page.locator('#data_password-error').waitFor();
        assert.match((await page.locator('#data_password-error').textContent()) ?? '', /password is required/);
        await page.getByLabel('Network password').fill('latte-1234');
        await page.getByLabel('Name (only you see it)').fill(`Cafe Wi-Fi ${screen.name}`);
        await page.getByLabel('Foreground colour').fill('#1a4d8f');
        await page.getByLabel('Background colour').fill('#fff8e7');
        await screenshot(page, 'dashboard-new-qr', screen);
        await Promise.all([page.waitForURL(/\/app\/qrs\/\d+\?done=created$/), page.getByRole('button', { name: 'Create the QR code' }).click()]);
        await page.locator('img.qr').waitFor();
        assert.ok(await page.locator('img.qr').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the preview loads');
        await assertNoHorizontalOverflow(page, `QR code, ${at}`);
        await screenshot(page, 'dashboard-qr', screen);
        const png = await download(page, page.getByRole('link', { name: 'Download PNG' }));
        assert.match(png.suggestedFilename(), /^\w+-qr\.png$/);
        assert.deepEqual([...(await readFile((await png.path())!)).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
        const svg = await download(page, page.getByRole('link', { name: 'Download SVG' }));
        const drawn = (await readFile((await svg.path())!)).toString('utf8');
        assert.match(drawn, /<svg/);
        assert.match(drawn, /#1a4d8f/i, 'drawn in its foreground colour');
        await page.goto(`${server.url}/app/qrs`);
        // The list's previews load lazily, after the page's load event: waited for, not sampled.
        await page.waitForFunction(() => {
          const img = document.querySelector<HTMLImageElement>('img.qr');
          return img !== null && img.complete && img.naturalWidth > 0;
        }, undefined, { timeout: 15_000 });
        await assertNoHorizontalOverflow(page, `QR codes, ${at}`);
        await screenshot(page, 'dashboard-qrs', screen);
      });

      const alias = `quinn-${screen.name}`;
      await t.test(`create a bio page with links and open its public page, ${at}`, async () => {
        // Bio pages are in the bar's "More" menu.
        await page.locator('details.more > summary').click();
        await Promise.all([page.waitForURL(/\/app\/bios$/), page.getByRole('link', { name: 'Bio pages', exact: true }).click()]);
        await Promise.all([page.waitForURL(/\/app\/bios\/new$/), page.getByRole('link', { name: 'New bio page' }).click()]);
        await page.getByLabel("Name (the page's title)").fill('Quinn Park');
        await page.getByLabel('Alias (its address: /u/alias)').fill(alias);
        await page.getByLabel('Description').fill('Ceramics and workshops');
        await page.getByLabel('Theme').selectOption('sunset');
        await page.getByLabel('Link 1 title').fill('Shop');
        await page.getByLabel('Link 1 URL').fill('https://example.com/shop');
        await page.getByLabel('Link 3 title').fill('Workshops');
        await page.getByLabel('Link 3 URL').fill('https://example.com/workshops');
        await assertNoHorizontalOverflow(page, `new bio page, ${at}`);
        await screenshot(page, 'dashboard-new-bio', screen);
        await Promise.all([page.waitForURL(/\/app\/bios\/\d+\/edit\?done=created$/), page.getByRole('button', { name: 'Create the bio page' }).click()]);
        assert.equal(await page.getByLabel('Link 2 URL').inputValue(), 'https://example.com/workshops', 'the empty row was left out');
        // The link is at BASE_URL (not this test server's port): opened here by its path.
        const href = await page.getByRole('link', { name: new RegExp(`/u/${alias}$`) }).getAttribute('href');
        assert.match(href!, new RegExp(`/u/${alias}$`));
        await page.goto(`${server.url}${new URL(href!).pathname}`);
        assert.match((await page.locator('body').textContent()) ?? '', /Quinn Park[\s\S]*Workshops/);
        await assertNoHorizontalOverflow(page, `bio page, ${at}`);
        await screenshot(page, 'dashboard-bio-public', screen);
      });

      await t.test(`upload a file and fetch it at its short link, ${at}`, async () => {
        await page.goto(`${server.url}/app/files`);
        await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'price-list.txt', mimeType: 'text/plain', buffer: Buffer.from('Mugs 12\nBowls 18\n') });
        await page.getByLabel('Alias (optional)').fill(`prices-${screen.name}`);
        await Promise.all([page.waitForURL(/done=uploaded$/), page.getByRole('button', { name: 'Upload the file' }).click()]);
        await assertNoHorizontalOverflow(page, `files, ${at}`);
        await screenshot(page, 'dashboard-files', screen);
        const short = await page.getByRole('link', { name: new RegExp(`/prices-${screen.name}$`) }).getAttribute('href');
        const res = await visit(`${server.url}${new URL(short!).pathname}`);
        assert.equal(res.status, 200);
        assert.equal(await res.text(), 'Mugs 12\nBowls 18\n');
        assert.deepEqual(errors, [], 'no console or script errors (CSP refusals included)');
      });
      await page.close();
    }
  });
}
