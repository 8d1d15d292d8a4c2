import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENS, assertNoHorizontalOverflow, chromiumPresent, launchBrowser, openAt, screenshot } from './browser.ts';
import { liveServer } from './live-server.ts';

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('the table-driven screens as a person uses them, on a laptop and on a phone: a pixel and a campaign made in the browser, a refused form, the bar\'s "More" menu, a campaign edited and deleted, a channel with an item, a domain with its DNS steps', { timeout: 300_000 }, async (t) => {
    const server = await liveServer(':memory:');
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const user = (await server.api('POST', '/api/user/add', { username: 'remy', email: 'remy@example.com', password: 'secret-pw' })).body.data;

    for (const screen of SCREENS) {
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;
      const page = await openAt(browser.context, screen);
      const errors: string[] = [];
      // A refused form answers 400 on purpose; what must not happen is a script or style the CSP refuses, or a script error.
      page.on('console', (m) => m.type() === 'error' && !/status of 400/.test(m.text()) && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));

      await t.test(`sign in and open Pixels from the "More" menu, ${at}`, async () => {
        await page.goto(`${server.url}/app/login`);
        await page.getByLabel('Username or email').fill('remy');
        await page.getByLabel('Password', { exact: true }).fill('secret-pw');
        await Promise.all([page.waitForURL(/\/app\/links$/), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
        await assertNoHorizontalOverflow(page, `links with the bar, ${at}`);
        await page.locator('details.more > summary').click();
        await assertNoHorizontalOverflow(page, `the open "More" menu, ${at}`);
        await Promise.all([page.waitForURL(/\/app\/pixels$/), page.getByRole('link', { name: 'Pixels', exact: true }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Pixels');
        assert.equal(await page.locator('details.more > summary').textContent(), 'More: Pixels', 'the bar names the open screen');
      });

      await t.test(`create a pixel, refused first, ${at}`, async () => {
        await Promise.all([page.waitForURL(/\/app\/pixels\/new$/), page.getByRole('link', { name: 'New pixel' }).click()]);
        await assertNoHorizontalOverflow(page, `new pixel, ${at}`);
        await page.getByLabel('Type').selectOption('fbpixel');
        await page.getByLabel('Tag or ID').fill(`FB-${screen.name}`);
        await page.getByRole('button', { name: 'Create the pixel' }).click();
        await page.locator('#name-error').waitFor();
        assert.match((await page.locator('#name-error').textContent()) ?? '', /Pixel name cannot be empty/);
        assert.equal(await page.getByLabel('Tag or ID').inputValue(), `FB-${screen.name}`, 'the form keeps what was typed');
        await page.getByLabel('Name').fill(`Ads ${screen.name}`);
        await Promise.all([page.waitForURL(/\/app\/pixels\/\d+\?done=created$/), page.getByRole('button', { name: 'Create the pixel' }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Ads ${screen.name}`);
        await assertNoHorizontalOverflow(page, `pixel page, ${at}`);
        await screenshot(page, 'dashboard-pixel', screen);
        const listed = await server.api('GET', '/api/pixels', undefined, user.apikey);
        assert.ok(listed.body.data.pixels.some((p: { name: string; tag: string }) => p.name === `Ads ${screen.name}` && p.tag === `FB-${screen.name}`), 'the API lists it');
      });

      await t.test(`create a campaign with a rotator, see its links, ${at}`, async () => {
        await page.goto(`${server.url}/app/campaigns/new`);
        await page.getByLabel('Name').fill(`Winter ${screen.name}`);
        await page.getByLabel('Rotator slug (optional)').fill(`winter-${screen.name}`);
        await page.getByLabel('Public').check();
        await Promise.all([page.waitForURL(/\/app\/campaigns\/\d+\?done=created$/), page.getByRole('button', { name: 'Create the campaign' }).click()]);
        const main = (await page.locator('main').textContent()) ?? '';
        assert.match(main, new RegExp(`/r/winter-${screen.name}`));
        assert.match(main, new RegExp(`/u/remy/winter-${screen.name}-\\d+`));
        assert.equal(await page.getByRole('button', { name: 'Copy' }).first().isVisible(), true, 'the script shows the copy buttons');
        await assertNoHorizontalOverflow(page, `campaign page, ${at}`);
        await screenshot(page, 'dashboard-campaign', screen);
        await page.goto(`${server.url}/app/campaigns`);
        await assertNoHorizontalOverflow(page, `campaign list, ${at}`);
        assert.match((await page.locator('main').textContent()) ?? '', new RegExp(`Winter ${screen.name}`));
        for (const path of ['channels', 'domains/new', 'splash/new', 'overlays/new']) {
          await page.goto(`${server.url}/app/${path}`);
          await assertNoHorizontalOverflow(page, `/app/${path}, ${at}`);
          await screenshot(page, `dashboard-${path.replace('/', '-')}`, screen);
        }
      });

      await t.test(`a campaign's page: edit it, then delete it through its confirmation page, ${at}`, async () => {
        await page.goto(`${server.url}/app/campaigns`);
        await Promise.all([page.waitForURL(/\/app\/campaigns\/\d+$/), page.getByRole('link', { name: `Winter ${screen.name}`, exact: true }).click()]);
        const id = Number(/\/(\d+)$/.exec(page.url())![1]);
        await page.getByLabel('Name').fill(`Winter sale ${screen.name}`);
        await page.getByLabel('Public').uncheck();
        await Promise.all([page.waitForURL(/\/app\/campaigns\/\d+\?done=saved$/), page.getByRole('button', { name: 'Save', exact: true }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Winter sale ${screen.name}`);
        assert.match((await page.locator('main').textContent()) ?? '', /Visitors are refused until the campaign is public/);
        await assertNoHorizontalOverflow(page, `campaign saved, ${at}`);
        await Promise.all([page.waitForURL(/\/delete$/), page.getByRole('link', { name: 'Delete…' }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Delete Winter sale ${screen.name}?`);
        await assertNoHorizontalOverflow(page, `campaign delete page, ${at}`);
        await screenshot(page, 'dashboard-campaign-delete', screen);
        await Promise.all([page.waitForURL(/\/app\/campaigns\?done=deleted$/), page.getByRole('button', { name: 'Delete the campaign' }).click()]);
        const left = await server.api('GET', '/api/campaigns', undefined, user.apikey);
        assert.ok(!left.body.data.campaigns.some((c: { id: number }) => c.id === id), 'the API lists it no more');
      });

      await t.test(`a channel made in the browser, a link added to it on its page, ${at}`, async () => {
        const alias = `social-${screen.name}`;
        const link = (await server.api('POST', '/api/url/add', { url: `https://example.com/social/${screen.name}`, custom: alias }, user.apikey)).body.id as number;
        assert.ok(link);
        await page.goto(`${server.url}/app/channels/new`);
        await page.getByLabel('Name').fill(`Social ${screen.name}`);
        await Promise.all([page.waitForURL(/\/app\/channels\/\d+\?done=created$/), page.getByRole('button', { name: 'Create the channel' }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Social ${screen.name}`);
        assert.match((await page.locator('main').textContent()) ?? '', /The channel holds nothing yet/);
        await page.getByLabel('Add to the channel').selectOption(`links:${link}`);
        await Promise.all([page.waitForURL(/done=item-added$/), page.getByRole('button', { name: 'Add', exact: true }).click()]);
        assert.match((await page.getByRole('region', { name: 'Items' }).textContent()) ?? '', new RegExp(`Links: https://example\\.com/social/${screen.name}`));
        await assertNoHorizontalOverflow(page, `channel page, ${at}`);
        await screenshot(page, 'dashboard-channel', screen);
        const id = Number(/\/channels\/(\d+)/.exec(page.url())![1]);
        const items = await server.api('GET', `/api/channel/${id}`, undefined, user.apikey);
        assert.equal(items.status, 200);
        assert.match(JSON.stringify(items.body), new RegExp(`/${alias}"`), 'the API lists the item');
      });

      await t.test(`a domain made in the browser, its page with the DNS steps, ${at}`, async () => {
        const host = `go-${screen.name}.example.com`;
        await page.goto(`${server.url}/app/domains/new`);
        await page.getByLabel('Domain', { exact: true }).fill(`https://${host}`);
        await Promise.all([page.waitForURL(/\/app\/domains\/\d+\?done=created$/), page.getByRole('button', { name: 'Create the domain' }).click()]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), host);
        const dns = (await page.getByRole('region', { name: 'DNS: point the domain at this server' }).textContent()) ?? '';
        assert.match(dns, new RegExp(`TXT record named _shortlink\\.${host.replace(/\./g, '\\.')}`));
        assert.equal(await page.getByRole('button', { name: 'Copy the value' }).isVisible(), true, 'the script shows the copy button');
        await assertNoHorizontalOverflow(page, `domain page, ${at}`);
        await screenshot(page, 'dashboard-domain', screen);
        const listed = await server.api('GET', '/api/domains', undefined, user.apikey);
        assert.ok(listed.body.data.domains.some((d: { domain: string }) => d.domain === `https://${host}`), 'the API lists it');
        assert.deepEqual(errors, [], 'no console or script errors (CSP refusals included)');
      });
      await page.close();
    }
  });
}
