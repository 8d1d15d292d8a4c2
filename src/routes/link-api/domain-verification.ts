import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../http/app-env.ts';
import { parseWith } from '../../http/validate.ts';
import type { Services } from '../../resources/define.ts';
import { domainHostname, domainOrigin } from '../../resources/domains.ts';

/** Where a proof is asked for: a host name, bare or as a URL (`go.example.com`, `https://go.example.com`). */
export const verificationQuery = v.object({
  domain: v.pipe(
    v.string(),
    v.check((raw) => domainOrigin(`https://${domainHostname(raw) ?? ''}`) !== null, 'Please enter a valid domain: a host name such as go.example.com.'),
  ),
});

/**
 * `GET /api/domains/verification?domain=go.example.com`: the DNS TXT record that proves the key's
 * user owns a host name, to publish before adding it as a branded domain (DOMAIN_CHECK=txt) or to
 * verify a website. One token per user, the same for every host; asking stores nothing.
 */
export function domainVerificationRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/domains/verification', async (c) => {
    const query = parseWith(verificationQuery, c.req.query());
    const host = domainHostname(query.domain)!;
    const record = await s.proofs.txtRecord(host, c.get('user'));
    return c.json({ error: 0, data: { domain: host, record, required: s.config.domainCheck === 'txt' } });
  });
  return routes;
}
