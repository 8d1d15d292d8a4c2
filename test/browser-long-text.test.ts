import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENS, assertNoHorizontalOverflow, chromiumPresent, launchBrowser, openAt } from './browser.ts';
import { liveServer } from './live-server.ts';

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('long text without spaces never widens a page: a 2,000-character URL, a 200-character description and title, a 99-character campaign name, on a laptop and a phone', { timeout: 300_000 }, async (t) => {
    const server = await liveServer(':memory:', { rateLimit: 0 });
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const made = await server.api('POST', '/api/user/add', { username: 'lena', email: 'lena@example.com', password: 'secret-pw' });
    const key = made.body.data.apikey as string;
    const word = (n: number) => 'w'.repeat(n);
    const campaign = await server.api('POST', '/api/campaign/add', { name: `שלום ${word(94)}` }, key);
    assert.equal(campaign.status, 200, JSON.stringify(campaign.body));
    const link = await server.api('POST', '/api/url/add', { url: `https://example.com/${word(2000)}`, description: word(200), metatitle: word(200), campaign: campaign.body.id }, key);
    assert.equal(link.status, 200, JSON.stringify(link.body));
    const channel = await server.api('POST', '/api/channel/add', { name: 'Long ones' }, key);
    assert.equal(channel.status, 200, JSON.stringify(channel.body));

    for (const screen of SCREENS) {
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;
      const page = await openAt(browser.context, screen);
      await t.test(`the links list, a link's page and a channel's page, ${at}`, async () => {
        await page.goto(`${server.url}/app/login`);
        await page.getByLabel('Username or email').fill('lena');
        await page.getByLabel('Password', { exact: true }).fill('secret-pw');
        await Promise.all([page.waitForURL(/\/app\/links$/), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
        await assertNoHorizontalOverflow(page, `links list with a long campaign name, ${at}`);
        await page.goto(`${server.url}/app/links/${link.body.id}`);
        assert.match((await page.textContent('main')) ?? '', /Sends to https:\/\/example\.com\/w{50}/);
        await assertNoHorizontalOverflow(page, `a link with a 2,000-character URL, ${at}`);
        await page.goto(`${server.url}/app/channels/${channel.body.id}`);
        await assertNoHorizontalOverflow(page, `a channel offering a link with a long title, ${at}`);
      });
    }
  });
}
