import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENS, assertCardMargin, assertNoHorizontalOverflow, chromiumPresent, launchBrowser, openAt, screenshot, smallestChartText, targetSite } from './browser.ts';
import { LIVE_ADMIN_KEY, liveServer } from './live-server.ts';

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const PHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('the pages people look at, in a real browser, on a laptop and on a phone', { timeout: 300_000 }, async (t) => {
    const server = await liveServer(':memory:', { trustProxy: true, analyticsRateLimit: 0, eventRateLimit: 0 });
    const target = await targetSite();
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await target.close();
      await server.close();
    });
    const ok = async (method: string, path: string, body: unknown, key = LIVE_ADMIN_KEY) => {
      const r = await server.api(method, path, body, key);
      assert.ok(r.status === 200 || r.status === 201, `${path}: ${JSON.stringify(r.body)}`);
      return r.body;
    };

    // Real data: websites of a user, and visits sent as a browser's tracking script sends them.
    const user = (await ok('POST', '/api/user/add', { username: 'alice', email: 'alice@example.com', password: 'secret-pw' })).data;
    const sites = { public: 'shop.example.com', private: 'private.example.com', password: 'secret.example.com' };
    await ok('POST', '/api/v1/websites', { domain: sites.public }, user.apikey);
    await ok('POST', '/api/v1/websites', { domain: sites.private, privacy: 1 }, user.apikey);
    await ok('POST', '/api/v1/websites', { domain: sites.password, privacy: 2, password: 'open sesame' }, user.apikey);
    const send = async (domain: string, i: number, body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': i % 3 === 0 ? PHONE_UA : BROWSER_UA, 'x-forwarded-for': `198.51.100.${i}`, 'cf-ipcountry': ['US', 'DE', 'FR'][i % 3]!, 'accept-language': 'en-US,en;q=0.9' },
        body: JSON.stringify({ page: `https://${domain}${body.page ?? '/'}`, referrer: 'https://news.example.org/post', screen_resolution: '1920x1080', ...body, ...(body.page ? { page: `https://${domain}${body.page}` } : {}) }),
      });
      assert.equal(res.status, 202, `event ${i} of ${domain}`);
    };
    for (const domain of Object.values(sites)) {
      for (let i = 0; i < 37; i++) await send(domain, i % 12, { page: ['/', '/pricing', '/blog/a-rather-long-article-title-that-goes-on-and-on'][i % 3] });
      for (let i = 0; i < 5; i++) await send(domain, i, { page: '/pricing', event: { name: 'signup-click' } });
    }

    // A link of each kind of page.
    const splash = await ok('POST', '/api/splash/add', { name: 'S', title: 'Before you go', text: 'Our partner site opens in a moment.', countdown: 30 });
    const message = await ok('POST', '/api/overlay/add', { type: 'message', name: 'M', message: 'Spring sale: 20% off everything', buttontext: 'Shop now', buttonlink: `${target.url}/shop`, position: 'bottom-right' });
    const contact = await ok('POST', '/api/overlay/add', { type: 'contact', name: 'C', message: 'Questions? Write to us.', fields: ['name', 'email', 'phone', 'message'], email: 'sales@example.com', position: 'center' });
    const link = (custom: string, extra: Record<string, unknown> = {}) => ok('POST', '/api/url/add', { url: `${target.url}/${custom}`, custom, ...extra });
    await link('locked', { password: 'pw-1234' });
    await link('splashed', { type: String(splash.id) });
    await link('framed', { type: 'frame' });
    await link('overlaid', { type: `overlay-${message.id}` });
    await link('contact', { type: `overlay-${contact.id}` });
    const old = await link('gone', { expiry: '2099-01-01 00:00:00' });
    const campaign = await ok('POST', '/api/campaign/add', { name: 'Spring Sale 2027', public: true });
    // Public: a campaign's page lists only public links (a new link is private unless sent public).
    for (const l of [await link('spring-a', { metatitle: 'Spring catalogue', status: 'public' }), await link('spring-b', { metatitle: 'A very long title for the second link of the spring campaign', status: 'public' })]) {
      await ok('POST', `/api/campaign/${campaign.id}/assign/${l.id}`, {});
    }
    const picture = await ok('POST', '/api/qr/add', { type: 'text', data: 'Ada' });
    const bio = await ok('POST', '/api/bio/add', {
      name: 'Ada Lovelace',
      alias: 'ada',
      description: 'Notes on the Analytical Engine, and where to find them.',
      // Any image of an http(s) address: a QR code's, one that is there.
      avatar: `${server.url}${new URL(picture.link).pathname}?size=192`,
      theme: 'dark',
      links: [
        { title: 'My notes on the engine', url: `${target.url}/notes` },
        { title: 'A very long title for a link that has to wrap on a phone rather than overflow it', url: `${target.url}/long` },
      ],
    });
    // Expire a link as time would: through the store of the running server.
    await server.store.transaction((tx) => tx.update('links', old.id, { expiry: '2000-01-01 00:00:00' }));

    for (const screen of SCREENS) {
      // Each screen size is a new visitor: no sign-in of the other one.
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;
      const open = async (path: string) => {
        const page = await openAt(browser.context, screen);
        const res = await page.goto(server.url + path);
        return { page, status: res?.status() };
      };

      await t.test(`public stats page, ${at}`, async () => {
        const { page, status } = await open(`/stats/${sites.public}`);
        assert.equal(status, 200);
        await screenshot(page, 'stats-public', screen);
        await assertStatsPage(page, at);
        await page.close();
      });

      await t.test(`password-protected stats page, ${at}: a wrong password, then the right one`, async () => {
        const { page, status } = await open(`/stats/${sites.password}`);
        assert.equal(status, 401);
        await screenshot(page, 'stats-gate-password', screen);
        await assertNoHorizontalOverflow(page, at);
        await assertCardMargin(page, at, 'main', 12);
        assert.ok(await page.getByText('protected by a password').isVisible());
        await page.getByLabel('Password').fill('not it');
        await submit(page, 'Sign in');
        assert.ok(await page.getByText('Wrong password.').isVisible());
        await page.getByLabel('Password').fill('open sesame');
        await submit(page, 'Sign in');
        await page.waitForURL(`**/stats/${sites.password}`);
        await screenshot(page, 'stats-password', screen);
        await assertStatsPage(page, at);
        await page.close();
      });

      await t.test(`owner-only stats page, ${at}: signed in with the API key`, async () => {
        const { page, status } = await open(`/stats/${sites.private}`);
        assert.equal(status, 401);
        await screenshot(page, 'stats-gate-owner', screen);
        assert.ok(await page.getByText('The owner can sign in with the API key').isVisible());
        await assertCardMargin(page, at, 'main', 12);
        await page.getByLabel('API key').fill(user.apikey);
        await submit(page, 'Sign in');
        await page.waitForURL(`**/stats/${sites.private}`);
        await screenshot(page, 'stats-owner', screen);
        await assertStatsPage(page, at);
        await page.close();
      });

      await t.test(`docs page, ${at}`, async () => {
        const { page, status } = await open('/docs');
        assert.equal(status, 200);
        await screenshot(page, 'docs', screen, false);
        await assertNoHorizontalOverflow(page, at);
        const title = page.getByRole('heading', { level: 1 });
        assert.ok(await title.isVisible());
        const auth = page.getByRole('heading', { name: 'Getting started' });
        assert.ok(await auth.isVisible(), 'how to authenticate comes with the introduction');
        assert.ok(await page.getByText('Authorization: Bearer', { exact: false }).first().isVisible());
        const [authBox, navBox, errorsBox] = await Promise.all([auth.boundingBox(), page.locator('nav').boundingBox(), page.locator('#errors').boundingBox()]);
        assert.ok(authBox && navBox && errorsBox);
        assert.ok(authBox.y < errorsBox.y, 'getting started before the error bodies');
        if (screen.name === 'phone') assert.ok(authBox.y + authBox.height < navBox.y, `on a phone the introduction (to ${authBox.y + authBox.height}px) comes before the endpoint list (${navBox.y}px)`);
        const broken = await page.evaluate(() => {
          // A word broken mid-word renders on more than one line: header cells and single-word codes must not.
          const out: string[] = [];
          const words = [...document.querySelectorAll('th, td > code:first-child')].filter((e) => !/[\s/.]/.test(e.textContent ?? ''));
          for (const e of words) {
            const range = document.createRange();
            range.selectNodeContents(e);
            const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            if (lines.size > 1) out.push(e.textContent ?? '');
          }
          return out;
        });
        assert.deepEqual(broken.slice(0, 5), [], 'words broken across lines');
        const anywhere = await page.evaluate(() => [...document.querySelectorAll('h3, th, td')].filter((e) => getComputedStyle(e).wordBreak === 'break-all' || getComputedStyle(e).overflowWrap === 'anywhere').length);
        assert.equal(anywhere, 0, 'no heading or cell may break anywhere inside a word');
        const notes = await page.evaluate(() => {
          // A note's first line sits on the same line as its row's name: compare the first line boxes of their text.
          // (No named helper: tsx would wrap it in a __name() the page does not have.)
          const out: string[] = [];
          for (const row of document.querySelectorAll('tbody tr')) {
            if (row.getBoundingClientRect().height === 0) continue; // in a closed <details>
            const cells = [...row.children];
            const [name, note] = [cells[0]!, cells[cells.length - 1]!].map((cell) => {
              const range = document.createRange();
              range.selectNodeContents(cell);
              return [...range.getClientRects()].find((r) => r.height > 0)?.top;
            });
            if (name !== undefined && note !== undefined && Math.abs(name - note) > 4) out.push(row.textContent ?? '');
          }
          return out;
        });
        assert.deepEqual(notes.slice(0, 3), [], 'notes aligned with their rows');
        await page.close();
      });

      await t.test(`password link, ${at}: a click on the form opens the link`, async () => {
        const { page, status } = await open('/locked');
        assert.equal(status, 200);
        await screenshot(page, 'link-password', screen);
        await assertLinkCard(page, at, 'This link is protected');
        // The palette of the stats page and the dashboard, dark where the reader's system is.
        const colours = () => page.evaluate(() => [document.body, document.querySelector('main')!, document.querySelector('h1')!].map((e, i) => getComputedStyle(e)[i < 2 ? 'backgroundColor' : 'color']));
        assert.deepEqual(await colours(), ['rgb(246, 248, 250)', 'rgb(255, 255, 255)', 'rgb(31, 35, 40)']);
        await page.emulateMedia({ colorScheme: 'dark' });
        assert.deepEqual(await colours(), ['rgb(13, 17, 23)', 'rgb(22, 27, 34)', 'rgb(230, 237, 243)']);
        await screenshot(page, 'link-password-dark', screen);
        await page.emulateMedia({ colorScheme: 'light' });
        await page.getByLabel('Password').fill('wrong');
        await submit(page, 'Continue');
        assert.ok(await page.getByRole('alert').getByText('Wrong password').isVisible());
        await page.getByLabel('Password').fill('pw-1234');
        await submit(page, 'Continue');
        await page.waitForURL(`${target.url}/locked`);
        assert.ok(await page.getByRole('heading', { name: 'Target site' }).isVisible());
        await page.close();
      });

      await t.test(`splash page, ${at}: the countdown counts, Continue is in the card`, async () => {
        const { page, status } = await open('/splashed');
        assert.equal(status, 200);
        await screenshot(page, 'link-splash', screen);
        await assertLinkCard(page, at, 'Before you go');
        assert.ok(await page.getByText('Our partner site opens in a moment.').isVisible());
        const count = page.locator('main [data-countdown]');
        const first = Number(await count.textContent());
        assert.ok(first >= 28 && first <= 30, `starts at the splash's countdown (${first})`);
        await page.waitForTimeout(2200);
        const later = Number(await count.textContent());
        assert.ok(later <= first - 2, `counts down: ${first} then ${later}`);
        const go = page.locator('main').getByRole('link', { name: 'Continue' });
        assert.ok(await go.isVisible(), 'the Continue link is inside the card');
        await go.click();
        await page.waitForURL(`${target.url}/splashed`);
        await page.close();
      });

      await t.test(`frame page, ${at}`, async () => {
        const { page, status } = await open('/framed');
        assert.equal(status, 200);
        await screenshot(page, 'link-frame', screen);
        await assertNoHorizontalOverflow(page, at);
        assert.ok(await page.frameLocator('iframe').getByRole('heading', { name: 'Target site' }).isVisible(), 'the target shows in the frame');
        assert.ok(await page.locator('.bar a').isVisible());
        await page.close();
      });

      await t.test(`CTA overlay, ${at}: a real link button, and a close button that hides it`, async () => {
        const { page, status } = await open('/overlaid');
        assert.equal(status, 200);
        await screenshot(page, 'link-overlay', screen);
        await assertNoHorizontalOverflow(page, at);
        const box = page.locator('.cta');
        assert.ok(await box.getByText('Spring sale: 20% off everything').isVisible());
        assert.equal(await page.locator('a button, button a').count(), 0, 'no button inside a link');
        const shop = box.getByRole('link', { name: 'Shop now' });
        assert.ok(await shop.isVisible());
        assert.equal(await shop.getAttribute('href'), `${target.url}/shop`);
        await assertCardMargin(page, at, '.cta');
        await box.getByRole('button', { name: 'Close' }).click();
        assert.ok(await box.isHidden(), 'the close button hides the overlay');
        assert.ok(await page.frameLocator('iframe').getByRole('heading', { name: 'Target site' }).isVisible(), 'the framed page stays');
        await page.close();
      });

      await t.test(`contact overlay, ${at}: labelled fields of a normal height, a textarea for the message, all on screen`, async () => {
        const { page, status } = await open('/contact');
        assert.equal(status, 200);
        await assertNoHorizontalOverflow(page, at);
        const box = page.locator('.cta');
        assert.ok(await box.getByText('Questions? Write to us.').isVisible());
        await assertCardMargin(page, at, '.cta');
        const cta = (await box.boundingBox())!;
        const viewport = page.viewportSize()!;
        assert.ok(cta.y >= 0 && cta.y + cta.height <= viewport.height, `the overlay fits the screen: ${cta.y} to ${cta.y + cta.height} of ${viewport.height}px`);
        for (const [label, tag, value] of [['Name', 'INPUT', 'Ada'], ['Email', 'INPUT', 'ada@example.com'], ['Phone', 'INPUT', '+44 20 7946 0000'], ['Message', 'TEXTAREA', 'Hello,\nhow much is it?']] as const) {
          const field = box.getByLabel(label, { exact: true });
          assert.ok(await field.isVisible(), `${label}: visible`);
          assert.ok(await box.getByText(label, { exact: true }).isVisible(), `${label}: its label shows, capitalised`);
          assert.equal(await field.evaluate((e) => e.tagName), tag, label);
          const { height, width } = (await field.boundingBox())!;
          if (tag === 'INPUT') assert.ok(height >= 32 && height <= 56, `${label}: a normal height (${height}px)`);
          else assert.ok(height >= 80, `${label}: room for a few lines (${height}px)`);
          assert.ok(width >= 200, `${label}: wide enough to type in (${width}px)`);
          await field.fill(value);
          assert.equal(await field.inputValue(), value, `${label}: usable`);
        }
        assert.ok(await box.getByRole('button', { name: 'Send' }).isVisible());
        await screenshot(page, 'link-contact', screen);
        await box.getByRole('button', { name: 'Close' }).click();
        assert.ok(await box.isHidden());
        await page.close();
      });

      await t.test(`bio page, ${at}: its avatar, name, description and links in its theme`, async () => {
        const { page, status } = await open(new URL(bio.link).pathname);
        assert.equal(status, 200);
        await screenshot(page, 'bio', screen);
        await assertLinkCard(page, at, 'Ada Lovelace');
        assert.ok(await page.getByText('Notes on the Analytical Engine').isVisible());
        assert.ok(await page.locator('img.avatar').isVisible(), 'the avatar');
        const loaded = await page.locator('img.avatar').evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : new Promise<number>((resolve) => { img.onload = img.onerror = () => resolve(img.naturalWidth); })));
        assert.ok(loaded > 0, `the avatar loaded: the CSP allows its origin (${loaded}px wide, src ${await page.locator('img.avatar').getAttribute('src')})`);
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(13, 17, 23)', 'the dark theme');
        const buttons = page.getByRole('link');
        assert.equal(await buttons.count(), 2);
        const main = (await page.locator('main').boundingBox())!;
        for (const button of await buttons.all()) {
          const b = (await button.boundingBox())!;
          assert.ok(b.x >= main.x && b.x + b.width <= main.x + main.width, 'each link button stays in the card');
          assert.ok(b.height >= 40, `a button a thumb can hit (${b.height}px)`);
        }
        await page.getByRole('link', { name: 'My notes on the engine' }).click();
        await page.waitForURL(`${target.url}/notes`);
        await page.close();
      });

      await t.test(`404 page, ${at}: a path with nothing at it`, async () => {
        const { page, status } = await open('/docs/');
        assert.equal(status, 404);
        await screenshot(page, 'not-found', screen);
        await assertLinkCard(page, at, 'Page not found');
        await page.close();
      });

      for (const [name, path, status, heading] of [
        ['expired', '/gone', 410, 'This link has expired'],
        ['not-found', '/no-such-link', 404, 'Link not found'],
        ['home', '/', 200, 'Short links'],
      ] as const) {
        await t.test(`${name} page, ${at}`, async () => {
          const { page, status: got } = await open(path);
          assert.equal(got, status);
          await screenshot(page, `link-${name}`, screen);
          await assertLinkCard(page, at, heading);
          await page.close();
        });
      }

      await t.test(`campaign page, ${at}: a readable URL, the links listed`, async () => {
        const { page, status } = await open(new URL(campaign.list).pathname);
        assert.equal(status, 200);
        await screenshot(page, 'link-campaign', screen);
        assert.match(page.url(), /\/u\/admin\/spring-sale-2027-\d+$/);
        await assertLinkCard(page, at, 'Spring Sale 2027');
        assert.ok(await page.getByRole('link', { name: 'Spring catalogue' }).isVisible());
        assert.ok(await page.getByRole('link', { name: 'A very long title for the second link of the spring campaign' }).isVisible());
        await page.close();
      });
    }
  });
}

/** What a person must see on a stats page: totals, a chart with readable labels, named countries, tables that say what they count. */
async function assertStatsPage(page: import('playwright-core').Page, at: string): Promise<void> {
  await assertNoHorizontalOverflow(page, at);
  assert.ok(await page.getByText("37", { exact: true }).first().isVisible(), 'the pageview total (37 pageviews of 12 visitors)');
  const { px, texts } = await smallestChartText(page);
  assert.ok(texts >= 5, `the chart shows its labels (${texts})`);
  assert.ok(px >= 10, `chart labels are at least 10px (${px.toFixed(1)}px) at ${at}`);
  const ticks = await page.evaluate(() => [...document.querySelectorAll('svg .y text')].filter((t) => t.getBoundingClientRect().width > 0).map((t) => Number(t.textContent)));
  assert.ok(ticks.length >= 3 && ticks.every((n) => n % 5 === 0 || n < 5), `round y-axis ticks: ${ticks.join(', ')}`);
  const countries = page.locator('section', { has: page.getByRole('heading', { name: 'Countries' }) });
  assert.ok(await countries.getByText('United States', { exact: true }).isVisible());
  assert.equal(await page.getByText('US:United States').count(), 0, 'no API form of country labels');
  const events = page.locator('section', { has: page.getByRole('heading', { name: 'Events' }) });
  assert.ok(await events.getByText('signup-click').isVisible(), 'custom events in their own table');
  assert.equal(await page.locator('section', { has: page.getByRole('heading', { name: 'Pages' }) }).getByText('signup-click').count(), 0);
  for (const section of await page.locator('section:has(table)').all()) {
    const head = (await section.locator('thead').textContent()) ?? '';
    assert.match(head, /Visitors|Pageviews|Events/, `each table says what it counts: ${head}`);
  }
}

/** Clicks a form's button and waits for the page it loads. */
async function submit(page: import('playwright-core').Page, button: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button }).click()]);
}

/** A link page: its heading visible, a card with a margin, nothing sideways. */
async function assertLinkCard(page: import('playwright-core').Page, at: string, heading: string): Promise<void> {
  assert.ok(await page.getByRole('heading', { name: heading }).isVisible(), heading);
  await assertNoHorizontalOverflow(page, at);
  await assertCardMargin(page, at, 'main', 12);
}
