import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { SCREENS, assertNoHorizontalOverflow, chromiumPresent, download, launchBrowser, openAt, screenshot } from './browser.ts';
import { liveServer } from './live-server.ts';
import { readZip } from './zip-reader.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const DAY = 86_400_000;

/** Whether a URL's period parameter is `period`. */
const periodIs = (period: string) => (url: URL) => url.searchParams.get('period') === period;

/** The headline figure named `name` ("Pageviews"), as the page shows it. */
const figure = (page: Page, name: string) => page.locator('.figure', { has: page.getByText(name, { exact: true }) }).locator('b').textContent();

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('the stats page as its users use it, on a laptop and on a phone: presets, the hourly chart, CSV and zip downloads, realtime', { timeout: 300_000 }, async (t) => {
    const server = await liveServer(':memory:', { trustProxy: true, analyticsRateLimit: 0, eventRateLimit: 0 });
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const user = (await server.api('POST', '/api/user/add', { username: 'alice', email: 'alice@example.com', password: 'secret-pw' })).body.data;
    const sites = { public: 'shop.example.com', private: 'private.example.com' };
    const ids: Record<string, number> = {};
    for (const [kind, domain] of Object.entries(sites)) {
      const r = await server.api('POST', '/api/v1/websites', { domain, ...(kind === 'private' ? { privacy: 1 } : {}) }, user.apikey);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids[kind] = r.body.data.id;
    }
    let visitors = 0;
    // Pageviews of today per website so far, with the rows of its pages.
    const today: Record<string, Map<string, number>> = { [sites.public]: new Map(), [sites.private]: new Map() };
    const visit = async (domain: string, path: string, country = 'DE') => {
      const counted = path.split('?')[0]!;
      today[domain]!.set(counted, (today[domain]!.get(counted) ?? 0) + 1);
      const res = await fetch(`${server.url}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': UA, 'x-forwarded-for': `198.51.100.${++visitors}`, 'cf-ipcountry': country },
        body: JSON.stringify({ page: `https://${domain}${path}`, referrer: 'https://www.google.com/' }),
      });
      assert.equal(res.status, 202);
    };
    for (const domain of Object.values(sites)) {
      for (let i = 0; i < 6; i++) await visit(domain, ['/', '/pricing?utm_source=newsletter&utm_campaign=<b>spring</b>', '/about'][i % 3]!, ['DE', 'US', 'FR'][i % 3]);
    }
    // Three days ago, as the counters keep a day (the events route counts today only).
    const earlier = new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10);
    await server.store.addCounts([{ subject: `website:${ids.public}`, day: earlier, owner: user.id, counts: { pageviews: 40, visitors: 9, page: { '/old-page': 40 } } }], 1000);
    const total = (domain: string) => String([...today[domain]!.values()].reduce((a, b) => a + b, 0));

    for (const screen of SCREENS) {
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;

      await t.test(`presets change the range, one day is charted by hour, ${at}`, async () => {
        const page = await openAt(browser.context, screen);
        assert.equal((await page.goto(`${server.url}/stats/${sites.public}`))?.status(), 200);
        await screenshot(page, 'stats-page-30-days', screen);
        await assertNoHorizontalOverflow(page, `30 days, ${at}`);
        assert.equal(await figure(page, 'Pageviews'), String(40 + Number(total(sites.public))));
        assert.match((await page.locator('svg.chart').first().getAttribute('aria-label')) ?? '', /per day$/);

        await Promise.all([page.waitForURL(periodIs('today')), page.getByRole('link', { name: 'Today', exact: true }).click()]);
        assert.equal(await figure(page, 'Pageviews'), total(sites.public));
        assert.equal(await page.locator('input[name="from"]').inputValue(), new Date().toISOString().slice(0, 10));
        assert.match((await page.locator('svg.chart').first().getAttribute('aria-label')) ?? '', /per hour$/, 'one day: an hourly chart');
        const table = page.locator('details', { hasText: 'The chart as a table' });
        await table.locator('summary').click();
        assert.equal(await table.locator('th').first().textContent(), 'Hour (UTC)');
        assert.ok((await table.locator('tbody tr').count()) >= 1);
        await screenshot(page, 'stats-page-today', screen);
        await assertNoHorizontalOverflow(page, `today, ${at}`);

        await Promise.all([page.waitForURL(periodIs('7d')), page.getByRole('link', { name: 'Last 7 days' }).click()]);
        assert.equal(await figure(page, 'Pageviews'), String(40 + Number(total(sites.public))), 'three days ago is in the last 7 days');
        await Promise.all([page.waitForURL(periodIs('yesterday')), page.getByRole('link', { name: 'Yesterday' }).click()]);
        assert.equal(await figure(page, 'Pageviews'), '0');
        // The custom form, as a person fills it.
        await page.locator('input[name="from"]').fill(earlier);
        await page.locator('input[name="to"]').fill(earlier);
        await Promise.all([page.waitForURL(periodIs('custom')), page.getByRole('button', { name: 'Show' }).click()]);
        assert.equal(await figure(page, 'Pageviews'), '40');
        assert.ok(await page.locator('section', { has: page.getByRole('heading', { name: 'Pages' }) }).getByText('/old-page').isVisible());
        await page.close();
      });

      await t.test(`tabs, flags and stored markup as text, light and dark, ${at}`, async () => {
        const page = await openAt(browser.context, screen);
        await page.goto(`${server.url}/stats/${sites.public}?period=today`);
        const campaigns = page.locator('section', { has: page.getByRole('heading', { name: /^UTM / }) });
        await Promise.all([page.waitForURL((u) => u.searchParams.get('utm') === 'utm_campaign'), campaigns.getByRole('link', { name: 'Campaign' }).click()]);
        assert.ok(await page.getByRole('cell', { name: '<b>spring</b>' }).isVisible(), 'a UTM value with markup shows as its text');
        assert.equal(await page.locator('section b:text("spring")').count(), 0);
        const locations = page.locator('section', { has: page.getByRole('heading', { name: 'Countries' }) });
        assert.ok(await locations.getByText('Germany', { exact: true }).isVisible());
        assert.equal(await locations.locator('td span[aria-hidden="true"]').first().textContent(), '\u{1F1E9}\u{1F1EA}', 'the flag, from the code');
        await assertNoHorizontalOverflow(page, at);
        const panels = await page.locator('.grid > section').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
        if (screen.name === 'phone') assert.equal(new Set(panels).size, 1, `panels stacked on a phone: ${panels.join(', ')}`);
        else assert.ok(new Set(panels).size >= 2, `panels side by side on a laptop: ${panels.join(', ')}`);
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(246, 248, 250)');
        await page.emulateMedia({ colorScheme: 'dark' });
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(13, 17, 23)', 'the dark scheme');
        await screenshot(page, 'stats-page-dark', screen);
        await page.close();
      });

      await t.test(`a panel's CSV link and the zip download, on a private page signed in to, ${at}`, async () => {
        const page = await openAt(browser.context, screen);
        assert.equal((await page.goto(`${server.url}/stats/${sites.private}`))?.status(), 401);
        await page.getByLabel('API key').fill(user.apikey);
        await Promise.all([page.waitForURL(`**/stats/${sites.private}`), page.getByRole('button', { name: 'Sign in' }).click()]);
        const pages = page.locator('section', { has: page.getByRole('heading', { name: 'Pages' }) });
        const csv = await download(page, pages.getByRole('link', { name: 'CSV of Pages' }));
        assert.match(csv.suggestedFilename(), /^private\.example\.com-page-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
        const rows = [...today[sites.private]!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p, n]) => `${p},${n}\r\n`);
        assert.equal(await readFile((await csv.path())!, 'utf8'), `value,count\r\n${rows.join('')}`);
        const zip = await download(page, page.getByRole('link', { name: 'Export all (zip)' }));
        const files = readZip(new Uint8Array(await readFile((await zip.path())!)));
        assert.match(files.get('country.csv') ?? '', /^value,count\r\nDE:Germany,\d+\r\nFR:France,2\r\nUS:United States,2\r\n$/);
        assert.equal(files.get('pageviews.csv'), `value,count\r\n${new Date().toISOString().slice(0, 10)},${total(sites.private)}\r\n`);
        await page.close();
      });

      await t.test(`realtime shows a visit made now, without a reload, ${at}`, async () => {
        for (const domain of [sites.public, sites.private]) {
          const page = await openAt(browser.context, screen);
          await page.clock.install();
          await page.goto(`${server.url}/stats/${domain}`);
          const line = page.locator('#realtime');
          const before = Number(/^(\d+) visitors? in the last 5 minutes$/.exec((await line.textContent()) ?? '')?.[1]);
          assert.ok(before >= 6, `${domain}: the visitors of the test so far (${await line.textContent()})`);
          await visit(domain, '/just-now');
          const want = `${before + 1} visitors in the last 5 minutes`;
          assert.notEqual(await line.textContent(), want, 'not before the page asks again');
          await page.clock.runFor(31_000);
          // Polled from here: the page's own timers are the fake clock's.
          let shown = '';
          for (let i = 0; i < 50 && shown !== want; i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            shown = (await line.textContent()) ?? '';
          }
          assert.equal(shown, want, `${domain}: the new visit, without a reload`);
          await screenshot(page, domain === sites.public ? 'stats-page-realtime' : 'stats-page-private', screen);
          await page.close();
        }
      });
    }
  });
}
