import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { SCREENS, assertNoHorizontalOverflow, assertReadableLightAndDark, chromiumPresent, download, focusRing, launchBrowser, openAt, screenshot, tabTo } from './browser.ts';
import { LIVE_ADMIN_KEY, liveServer, visit } from './live-server.ts';

if (!chromiumPresent()) {
  console.log('# browser tests skipped: Chromium not found (apt-get install chromium)');
} else {
  test('the dashboard as a person uses it, on a laptop and on a phone: register, sign in with the keyboard, create a link with options and open it, edit, QR download, live search, copy, bulk move and delete, a website with its settings and statistics, an API key, a webhook, email and password, sign out, the admin\'s users; light and dark, WCAG AA contrast', { timeout: 300_000 }, async (t) => {
    const server = await liveServer(':memory:', { openRegistration: true });
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const user = (await server.api('POST', '/api/user/add', { username: 'dana', email: 'dana@example.com', password: 'secret-pw' })).body.data;
    const campaign = (await server.api('POST', '/api/campaign/add', { name: 'Autumn' }, user.apikey)).body.id as number;
    assert.ok(campaign);
    // The copy buttons write to the clipboard, which the tests read back.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    // Her password changes on the account page on each screen.
    let password = 'secret-pw';

    for (const screen of SCREENS) {
      await browser.context.clearCookies();
      const at = `${screen.name} (${screen.width}px)`;
      const page = await openAt(browser.context, screen);
      // Each confirmation asked (data-confirm): accepted, or dismissed once when `dismissNext` says so.
      const dialogs: string[] = [];
      let dismissNext = false;
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        const dismiss = dismissNext;
        dismissNext = false;
        void (dismiss ? dialog.dismiss() : dialog.accept());
      });
      const errors: string[] = [];
      // A refused form answers 400 on purpose; what must not happen is a script or style the CSP refuses, or a script error.
      page.on('console', (m) => m.type() === 'error' && !/status of 400/.test(m.text()) && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));

      await t.test(`the sign-in page in light and dark, then registration, refused first, ${at}`, async () => {
        await page.goto(`${server.url}/app`);
        assert.equal(new URL(page.url()).pathname, '/app/login');
        await assertNoHorizontalOverflow(page, `sign-in, ${at}`);
        await screenshot(page, 'dashboard-login', screen);
        await assertReadableLightAndDark(page, `sign-in, ${at}`, screen, 'dashboard-login');
        await Promise.all([page.waitForURL(/\/app\/register$/), page.getByRole('link', { name: 'Create one' }).click()]);
        await assertNoHorizontalOverflow(page, `registration, ${at}`);
        await page.getByLabel('Username').fill('dana');
        await page.getByLabel('Email').fill(`newcomer-${screen.name}@example.com`);
        await page.getByLabel('Password (at least 5 characters)').fill('fresh-pw');
        await page.getByRole('button', { name: 'Create the account' }).click();
        await page.locator('#register-error').waitFor();
        assert.match((await page.locator('#register-error').textContent()) ?? '', /already taken/);
        assert.equal(await page.getByLabel('Email').inputValue(), `newcomer-${screen.name}@example.com`, 'the form keeps what was typed');
        await screenshot(page, 'dashboard-register', screen);
        await page.getByLabel('Username').fill(`newcomer-${screen.name}`);
        await page.getByLabel('Password (at least 5 characters)').fill('fresh-pw');
        await page.getByRole('button', { name: 'Create the account' }).click();
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Welcome, newcomer-${screen.name}`);
        const key = ((await page.locator('main code').textContent()) ?? '').trim();
        assert.equal((await server.api('GET', '/api/account', undefined, key)).body.data.username, `newcomer-${screen.name}`, 'the new account and its key work');
        await assertNoHorizontalOverflow(page, `registered, ${at}`);
        await screenshot(page, 'dashboard-registered', screen);
        assert.equal(await page.getByRole('link', { name: 'Go to your links' }).getAttribute('href'), '/app/links');
      });

      await t.test(`sign in with the keyboard only, the focus shown on each control, ${at}`, async () => {
        // Out of the new account's session.
        await browser.context.clearCookies();
        await page.goto(`${server.url}/app/login`);
        // The username box has the focus on arrival (autofocus); else Tab reaches it.
        const onLogin = () => page.evaluate(() => document.activeElement?.getAttribute('name') === 'login');
        for (let i = 0; i < 3 && !(await onLogin()); i++) await tabTo(page, `sign-in, ${at}`);
        assert.ok(await onLogin(), 'the username box has the focus');
        assert.ok((await focusRing(page)).ring, 'the username box shows its focus');
        await page.keyboard.type('dana');
        assert.match(await tabTo(page, `sign-in, ${at}`), /<input> password/);
        await page.keyboard.type(password);
        assert.match(await tabTo(page, `sign-in, ${at}`), /<button> Sign in/);
        await Promise.all([page.waitForURL(/\/app\/links$/), page.keyboard.press('Enter')]);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Links');
        // From the top of a signed-in page: the skip link (shown on screen when focused), then the bar.
        assert.match(await tabTo(page, `links, ${at}`), /<a> Skip to content/);
        const skip = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
        assert.ok(skip && skip.x >= 0 && skip.y >= 0, 'the focused skip link is on screen');
        assert.match(await tabTo(page, `links, ${at}`), /<a> Dashboard/);
        assert.match(await tabTo(page, `links, ${at}`), /<a> Links/);
      });

      const alias = `autumn-${screen.name}`;
      await t.test(`create a link with options and open it, ${at}`, async () => {
        await Promise.all([page.waitForURL(/\/app\/links\/new$/), page.getByRole('link', { name: 'New link' }).click()]);
        await assertNoHorizontalOverflow(page, `new link, ${at}`);
        await assertReadableLightAndDark(page, `new link, ${at}`, screen, 'dashboard-new-link');
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
        const png = await download(page, page.getByRole('link', { name: 'Download PNG' }));
        assert.equal(png.suggestedFilename(), `${alias}-qr.png`);
        const bytes = await readFile((await png.path())!);
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

      await t.test(`the list: live search, select all, copy, bulk move to a campaign, bulk delete with its confirmation, ${at}`, async () => {
        for (const n of [1, 2]) assert.equal((await server.api('POST', '/api/url/add', { url: `https://example.com/spare/${n}`, custom: `spare-${screen.name}-${n}` }, user.apikey)).status, 200);
        const spares = async () => (await server.api('GET', `/api/urls?q=spare-${screen.name}`, undefined, user.apikey)).body.data.urls as { alias: string; campaign: number | null }[];
        await page.goto(`${server.url}/app/links`);
        // Typed, not submitted: the script submits the search once typing stops, and keeps the box focused.
        await page.getByRole('searchbox', { name: 'Search' }).pressSequentially(`spare-${screen.name}`);
        await page.waitForURL(new RegExp(`/app/links\\?q=spare-${screen.name}&`));
        assert.equal(await page.locator('input[name=ids]').count(), 2, 'only the two matches are listed');
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'q', 'the search box keeps the focus');
        await assertNoHorizontalOverflow(page, `list, ${at}`);
        await screenshot(page, 'dashboard-links', screen);
        await assertReadableLightAndDark(page, `list, ${at}`, screen, 'dashboard-links');

        const all = page.getByRole('checkbox', { name: 'Select every link of the page' });
        await all.check();
        assert.equal(await page.locator('input[name=ids]:checked').count(), 2, 'select-all checks every row');
        await all.uncheck();
        assert.equal(await page.locator('input[name=ids]:checked').count(), 0, 'and unchecks them');

        const row = page.getByRole('row').filter({ has: page.getByRole('checkbox', { name: `Select spare-${screen.name}-1` }) });
        const short = ((await row.locator('a.short').textContent()) ?? '').trim();
        assert.match(short, new RegExp(`/spare-${screen.name}-1$`));
        await row.getByRole('button', { name: 'Copy' }).click();
        await row.getByRole('button', { name: 'Copied' }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), short, 'the short URL is on the clipboard');

        await page.getByRole('checkbox', { name: `Select spare-${screen.name}-1` }).check();
        await page.locator('form[action="/app/links/bulk"] select[name=campaign]').selectOption(String(campaign));
        await Promise.all([page.waitForURL(/&done=moved$/), page.getByRole('button', { name: 'Move selected to the campaign' }).click()]);
        assert.deepEqual((await spares()).map((l) => [l.alias, l.campaign]).sort(), [[`spare-${screen.name}-1`, campaign], [`spare-${screen.name}-2`, null]]);
        await assertNoHorizontalOverflow(page, `list after a move, ${at}`);

        // Delete asks first: dismissed, nothing is deleted; accepted, both are.
        await all.check();
        dialogs.length = 0;
        dismissNext = true;
        await page.getByRole('button', { name: 'Delete selected' }).click();
        assert.deepEqual(dialogs, ['Delete the selected links and their statistics?']);
        await page.waitForLoadState();
        assert.match(page.url(), /done=moved$/, 'still on the list');
        assert.equal((await spares()).length, 2, 'nothing deleted');
        await Promise.all([page.waitForURL(/done=bulk-deleted$/), page.getByRole('button', { name: 'Delete selected' }).click()]);
        assert.equal(dialogs.length, 2, 'asked again');
        assert.match((await page.locator('main').textContent()) ?? '', /No link matches/);
        assert.equal((await spares()).length, 0);
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
        // Its settings, saved and shown again from the store.
        await page.getByRole('checkbox', { name: 'Leave out bots' }).check();
        await page.getByLabel('Query parameters left out of page addresses (one a line)').fill('utm_source\nref');
        await Promise.all([page.waitForURL(/\/app\/websites\/\d+\?done=saved$/), page.getByRole('button', { name: 'Save the settings' }).click()]);
        assert.match((await page.getByRole('status').textContent()) ?? '', /The settings were saved/);
        assert.equal(await page.getByLabel('Query parameters left out of page addresses (one a line)').inputValue(), 'utm_source\nref');
        assert.equal(await page.getByRole('checkbox', { name: 'Leave out bots' }).isChecked(), true);
        await assertNoHorizontalOverflow(page, `website settings saved, ${at}`);
        await page.getByRole('link', { name: 'Websites' }).first().click();
        await page.waitForURL(/\/app\/websites$/);
        assert.equal(await page.getByRole('link', { name: domain }).count(), 1, 'the list names it');
        await assertNoHorizontalOverflow(page, `websites, ${at}`);
        await screenshot(page, 'dashboard-websites', screen);
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

      await t.test(`make a webhook, see its secret once, delete it after a confirmation, ${at}`, async () => {
        const hooks = async () => (await server.api('GET', '/api/webhooks', undefined, user.apikey)).body.data.webhooks as { url: string }[];
        const url = `https://hooks.example.com/dana-${screen.name}`;
        await page.goto(`${server.url}/app/account/webhooks`);
        await page.getByLabel('Sends to (URL)').fill(url);
        await page.getByRole('checkbox', { name: 'link.created', exact: true }).check();
        await page.getByRole('button', { name: 'Make the webhook' }).click();
        assert.match(((await page.locator('code.secret').textContent()) ?? '').trim(), /^whsec_/);
        assert.equal(await page.getByRole('button', { name: 'Copy the secret' }).isVisible(), true, 'the script shows the copy button');
        assert.match((await page.getByRole('row', { name: new RegExp(url) }).textContent()) ?? '', /link\.created.*active/);
        await assertNoHorizontalOverflow(page, `webhooks, ${at}`);
        await screenshot(page, 'dashboard-webhooks', screen);
        assert.deepEqual((await hooks()).map((h) => h.url), [url]);
        dialogs.length = 0;
        await Promise.all([page.waitForURL(/done=deleted$/), page.getByRole('button', { name: `Delete the webhook to ${url}` }).click()]);
        assert.deepEqual(dialogs, ['Delete this webhook and its delivery log?']);
        assert.deepEqual(await hooks(), []);
      });

      await t.test(`change the email and the password on the account page, then sign out, ${at}`, async () => {
        await page.goto(`${server.url}/app/account`);
        await assertNoHorizontalOverflow(page, `account, ${at}`);
        await assertReadableLightAndDark(page, `account, ${at}`, screen, 'dashboard-account');
        const emailForm = page.locator('form[action="/app/account/email"]');
        await emailForm.getByLabel('Email').fill(`dana.${screen.name}@example.com`);
        await emailForm.getByLabel('Current password').fill(password);
        await Promise.all([page.waitForURL(/done=email$/), emailForm.getByRole('button', { name: 'Change the email' }).click()]);
        assert.match((await page.getByRole('status').textContent()) ?? '', /The email was changed/);
        assert.equal((await server.api('GET', '/api/account', undefined, user.apikey)).body.data.email, `dana.${screen.name}@example.com`);

        const passwordForm = page.locator('form[action="/app/account/password"]');
        const fresh = `secret-pw-${screen.name}`;
        await passwordForm.getByLabel('Current password').fill(password);
        await passwordForm.getByLabel('New password', { exact: true }).fill(fresh);
        await passwordForm.getByLabel('New password again').fill('something else');
        await passwordForm.getByRole('button', { name: 'Change the password' }).click();
        await page.locator('#password_again-error').waitFor();
        assert.match((await page.locator('#password_again-error').textContent()) ?? '', /The two new passwords differ/);
        await assertNoHorizontalOverflow(page, `account with a refused form, ${at}`);
        await passwordForm.getByLabel('Current password').fill(password);
        await passwordForm.getByLabel('New password', { exact: true }).fill(fresh);
        await passwordForm.getByLabel('New password again').fill(fresh);
        await Promise.all([page.waitForURL(/done=password$/), passwordForm.getByRole('button', { name: 'Change the password' }).click()]);
        assert.match((await page.getByRole('status').textContent()) ?? '', /The password was saved/);
        // The next screen's keyboard sign-in uses the new password.
        password = fresh;
        await screenshot(page, 'dashboard-account', screen);

        await Promise.all([page.waitForURL(/\/app\/login$/), page.getByRole('button', { name: /^Sign out dana/ }).click()]);
        await page.goto(`${server.url}/app/links`);
        assert.equal(new URL(page.url()).pathname, '/app/login');
      });

      await t.test(`the admin disables the user with a reason, and enables them again, ${at}`, async () => {
        await browser.context.clearCookies();
        await page.goto(`${server.url}/app/login`);
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
      });

      await t.test(`the admin signs in as the user and back, makes a user and deletes them after a confirmation, ${at}`, async () => {
        await Promise.all([page.waitForURL(/\/app\/links$/), page.getByRole('button', { name: 'Sign in as dana' }).click()]);
        assert.match((await page.getByRole('status').textContent()) ?? '', /signed in as dana: what you do here is done as this user/);
        assert.equal(await page.getByRole('checkbox', { name: `Select autumn-${screen.name}` }).count(), 1, "her links are listed");
        await assertNoHorizontalOverflow(page, `signed in as, ${at}`);
        await screenshot(page, 'dashboard-signed-in-as', screen);
        await Promise.all([page.waitForURL(/\/app\/admin\/users\?done=back$/), page.getByRole('button', { name: /^Back to / }).click()]);

        const name = `temp-${screen.name}`;
        await page.getByLabel('Username', { exact: true }).fill(name);
        await page.getByLabel('Email', { exact: true }).fill(`${name}@example.com`);
        await page.getByLabel('Password', { exact: true }).fill('temp-pw-1');
        await page.getByRole('button', { name: 'Make the user' }).click();
        assert.equal(await page.getByRole('heading', { name: `The user ${name} was made` }).count(), 1);
        const key = ((await page.locator('code.secret').textContent()) ?? '').trim();
        assert.equal((await server.api('GET', '/api/account', undefined, key)).body.data.username, name, 'their key works');
        await assertNoHorizontalOverflow(page, `users with a new one, ${at}`);
        await screenshot(page, 'dashboard-users-new', screen);

        await page.goto(`${server.url}/app/admin/users?q=${name}`);
        dialogs.length = 0;
        dismissNext = true;
        await page.getByRole('button', { name: `Delete ${name}` }).click();
        assert.equal(dialogs.length, 1, 'asked first');
        assert.equal((await server.api('GET', '/api/account', undefined, key)).status, 200, 'dismissed: not deleted');
        await Promise.all([page.waitForURL(/done=deleted$/), page.getByRole('button', { name: `Delete ${name}` }).click()]);
        assert.match(dialogs[1] ?? '', new RegExp(`^Delete ${name} with all their links`));
        assert.match((await page.getByRole('status').textContent()) ?? '', /The user was deleted/);
        assert.equal((await server.api('GET', '/api/account', undefined, key)).status, 401, 'their key is gone');
        await assertNoHorizontalOverflow(page, `users after a deletion, ${at}`);
        await Promise.all([page.waitForURL(/\/app\/login$/), page.getByRole('button', { name: /^Sign out/ }).click()]);
        assert.deepEqual(errors, [], 'no console or script errors (CSP refusals included)');
      });
      await page.close();
    }
  });
}
