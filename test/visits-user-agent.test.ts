import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentOf, classifyUserAgent, isBotAgent, type UserAgentInfo } from '../src/visits/user-agent.ts';

const WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)';
const MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)';
const CHROME_TAIL = 'AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)';

const desktop = (browser: string, os: string, platform: UserAgentInfo['platform']): UserAgentInfo => ({ browser, os, device: 'Desktop', platform });
const iphone = (browser: string): UserAgentInfo => ({ browser, os: 'iOS', device: 'Mobile', platform: 'iPhone' });
const android = (browser: string, device: 'Mobile' | 'Tablet'): UserAgentInfo => ({ browser, os: 'Android', device, platform: 'Android' });

const cases: Array<{ name: string; ua: string | undefined; want: UserAgentInfo; bot: boolean }> = [
  { name: 'Chrome on Windows', ua: `${WIN} ${CHROME_TAIL}`, want: desktop('Chrome', 'Windows', 'Windows'), bot: false },
  { name: 'Firefox on Windows', ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0', want: desktop('Firefox', 'Windows', 'Windows'), bot: false },
  { name: 'Edge on Windows', ua: `${WIN} ${CHROME_TAIL} Edg/124.0.2478.51`, want: desktop('Edge', 'Windows', 'Windows'), bot: false },
  { name: 'legacy Edge on Windows', ua: `${WIN} AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19582`, want: desktop('Edge', 'Windows', 'Windows'), bot: false },
  { name: 'Opera on Windows', ua: `${WIN} ${CHROME_TAIL} OPR/109.0.0.0`, want: desktop('Opera', 'Windows', 'Windows'), bot: false },
  { name: 'Internet Explorer 11', ua: 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko', want: desktop('Internet Explorer', 'Windows', 'Windows'), bot: false },
  { name: 'Internet Explorer 9 on a Tablet PC', ua: 'Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0; Tablet PC 2.0)', want: desktop('Internet Explorer', 'Windows', 'Windows'), bot: false },
  { name: 'Safari on macOS', ua: `${MAC} AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15`, want: desktop('Safari', 'macOS', 'Macintosh'), bot: false },
  { name: 'Chrome on macOS', ua: `${MAC} ${CHROME_TAIL}`, want: desktop('Chrome', 'macOS', 'Macintosh'), bot: false },
  { name: 'Firefox on macOS', ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0', want: desktop('Firefox', 'macOS', 'Macintosh'), bot: false },
  { name: 'Firefox on Ubuntu', ua: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', want: desktop('Firefox', 'Linux', 'Linux'), bot: false },
  { name: 'Chrome on Linux', ua: `Mozilla/5.0 (X11; Linux x86_64) ${CHROME_TAIL}`, want: desktop('Chrome', 'Linux', 'Linux'), bot: false },
  { name: 'Chrome on a Chromebook', ua: `Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) ${CHROME_TAIL}`, want: desktop('Chrome', 'Chrome OS', 'ChromeOS'), bot: false },
  { name: 'Vivaldi counts as Other', ua: `Mozilla/5.0 (X11; Linux x86_64) ${CHROME_TAIL} Vivaldi/6.7.3329.21`, want: desktop('Other', 'Linux', 'Linux'), bot: false },
  { name: 'Safari on iPhone', ua: `${IPHONE} Version/17.4.1 Mobile/15E148 Safari/604.1`, want: iphone('Safari'), bot: false },
  { name: 'Chrome on iPhone', ua: `${IPHONE} CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1`, want: iphone('Chrome'), bot: false },
  { name: 'Firefox on iPhone', ua: `${IPHONE} FxiOS/125.0 Mobile/15E148 Safari/605.1.15`, want: iphone('Firefox'), bot: false },
  { name: 'Edge on iPhone', ua: `${IPHONE} Version/17.0 EdgiOS/124.2478.50 Mobile/15E148 Safari/605.1.15`, want: iphone('Edge'), bot: false },
  { name: 'Facebook in-app browser on iPhone', ua: `${IPHONE} Mobile/15E148 [FBAN/FBIOS;FBAV/458.0.0.33.110]`, want: iphone('Other'), bot: false },
  { name: 'Safari on iPad', ua: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1', want: { browser: 'Safari', os: 'iPadOS', device: 'Tablet', platform: 'iPad' }, bot: false },
  { name: 'Chrome on an Android phone', ua: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36', want: android('Chrome', 'Mobile'), bot: false },
  { name: 'Chrome on an Android tablet', ua: 'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', want: android('Chrome', 'Tablet'), bot: false },
  { name: 'Samsung Internet on a Galaxy phone', ua: 'Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36', want: android('Samsung Internet', 'Mobile'), bot: false },
  { name: 'Opera on Android', ua: 'Mozilla/5.0 (Linux; Android 10; VOG-L29) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 OPR/81.1.4292.78446', want: android('Opera', 'Mobile'), bot: false },
  { name: 'Opera Mini on Android', ua: 'Opera/9.80 (Android; Opera Mini/36.2.2254/119.132; U; id) Presto/2.12.423 Version/12.16', want: android('Opera', 'Mobile'), bot: false },
  { name: 'Edge on Android', ua: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 EdgA/124.0.2478.64', want: android('Edge', 'Mobile'), bot: false },
  { name: 'Firefox on an Android phone', ua: 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0', want: android('Firefox', 'Mobile'), bot: false },
  { name: 'Firefox on an Android tablet', ua: 'Mozilla/5.0 (Android 14; Tablet; rv:125.0) Gecko/125.0 Firefox/125.0', want: android('Firefox', 'Tablet'), bot: false },
  { name: 'Android WebView', ua: 'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36', want: android('Chrome', 'Mobile'), bot: false },
  { name: 'old Android stock browser is not Safari', ua: 'Mozilla/5.0 (Linux; U; Android 4.0.3; ko-kr; LG-L160L Build/IML74K) AppleWebkit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30', want: android('Other', 'Mobile'), bot: false },
  { name: 'Windows Phone', ua: 'Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.15063', want: { browser: 'Edge', os: 'Windows', device: 'Mobile', platform: 'Windows' }, bot: false },
  { name: 'curl', ua: 'curl/8.4.0', want: { browser: 'Other', os: 'Other', device: 'Unknown', platform: 'Other' }, bot: true },
  { name: 'Googlebot', ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', want: { browser: 'Other', os: 'Other', device: 'Unknown', platform: 'Other' }, bot: true },
  { name: 'empty UA', ua: '', want: { browser: 'Unknown', os: 'Unknown', device: 'Unknown', platform: 'Other' }, bot: false },
  { name: 'blank UA', ua: '   ', want: { browser: 'Unknown', os: 'Unknown', device: 'Unknown', platform: 'Other' }, bot: false },
  { name: 'missing UA', ua: undefined, want: { browser: 'Unknown', os: 'Unknown', device: 'Unknown', platform: 'Other' }, bot: false },
];

test('classifyUserAgent and isBotAgent', async (t) => {
  for (const c of cases) {
    await t.test(c.name, () => {
      assert.deepEqual(classifyUserAgent(c.ua), c.want);
      assert.equal(isBotAgent(c.ua), c.bot);
    });
  }
});

test('agentOf: the classification and the bot test of a user agent, kept for the last 1,000 seen', () => {
  const uas = [undefined, '', '   ', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1', 'curl/8.4.0'];
  for (const ua of uas) {
    assert.deepEqual(agentOf(ua), { agent: classifyUserAgent(ua), bot: isBotAgent(ua) }, String(ua));
    assert.equal(agentOf(ua), agentOf(ua), 'the same answer again, not worked out twice');
  }
  const first = agentOf('agent-kept-test/0');
  for (let i = 1; i <= 1000; i++) agentOf(`agent-kept-test/${i}`);
  assert.notEqual(agentOf('agent-kept-test/0'), first, 'the oldest of 1,001 is worked out again');
  assert.deepEqual(agentOf('agent-kept-test/0'), first);
});
