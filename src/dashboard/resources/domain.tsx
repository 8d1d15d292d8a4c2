import { isIP } from 'node:net';
import type { Domain } from '../../resources/domains.ts';
import { domainHostname, domains } from '../../resources/domains.ts';
import type { StoredRecord } from '../../store/store.ts';
import type { ResourceScreen, ScreenContext } from './screen.ts';

/**
 * The DNS records that bring a host name to this server: a CNAME to the server's own host name (not
 * at a zone's apex, where DNS allows none), or an A/AAAA record to SERVER_IP; and the TXT record
 * that proves the user owns it (required before adding with DOMAIN_CHECK=txt).
 */
async function dnsSteps(x: ScreenContext, host: string | null) {
  const { config, proofs } = x.d.s;
  const own = new URL(config.baseUrl).hostname;
  const name = host ?? 'your host name (go.example.com)';
  const proof = await proofs.txtRecord(host ?? 'example.com', x.who.user);
  const proofName = host ? proof.name : '_shortlink.<your host name>';
  const cname = !isIP(own) && own !== 'localhost';
  return (
    <section class="card" aria-labelledby="dns-h">
      <h2 id="dns-h">DNS: point the domain at this server</h2>
      <ol>
        {cname && (
          <li>
            A <strong>CNAME</strong> record for {name} with the value <code>{own}</code> (for a subdomain; a bare domain such as example.com takes an A record instead).
          </li>
        )}
        <li>
          {config.serverIp.length > 0 ? (
            <>
              {cname ? 'Or an' : 'An'} <strong>A</strong> (AAAA for IPv6) record for {name} with the value{' '}
              {config.serverIp.map((ip, n) => (
                <>
                  {n > 0 && ' or '}
                  <code>{ip}</code>
                </>
              ))}
              .
            </>
          ) : (
            <>{cname ? 'Or an' : 'An'} <strong>A</strong> (AAAA for IPv6) record for {name} with the public IP address of this server (ask its administrator).</>
          )}
        </li>
        <li>
          {config.domainCheck === 'txt' ? 'Before adding it, prove' : 'To prove'} that it is yours: a <strong>TXT</strong> record named <code>{proofName}</code> with the value <code class="secret">{proof.value}</code>
          <button type="button" class="secondary" data-copy={proof.value} hidden>
            Copy the value
          </button>
        </li>
      </ol>
      <p class="hint">
        {config.domainCheck === 'dns' ? 'The domain is added only once it resolves to this server. ' : ''}Links made on the domain then answer at https://{host ?? '<your host name>'}/alias; the main host keeps working.
      </p>
    </section>
  );
}

/** The branded domain screens, with the DNS steps on the new domain's page and on each domain's. */
export const domainScreen: ResourceScreen = {
  row: domains,
  path: 'domains',
  title: 'Domains',
  one: 'domain',
  labels: { name: 'Domain', domain: 'Domain', redirectroot: 'Root redirect', redirect404: '404 redirect' },
  hints: { domain: 'Such as https://go.example.com: the scheme and the host name, nothing after them.', redirectroot: 'Where the bare domain sends visitors. Empty: the home page.', redirect404: 'Where an unknown alias sends visitors. Empty: the not-found page.' },
  columns: ['redirectroot', 'redirect404'],
  titleOf: (r) => String((r as Domain).domain).replace(/^https?:\/\//, ''),
  beforeNew: (x) => dnsSteps(x, null),
  details: (x, record: StoredRecord) => dnsSteps(x, domainHostname((record as Domain).domain)),
};
