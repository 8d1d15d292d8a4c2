import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import type { Services } from '../../resources/define.ts';
import { findVisible, transact } from '../crud.ts';
import { RECEIVING_INDEX, takeOverDomain } from '../../analytics/website-ownership.ts';
import { laravelTime, websiteEntry, websites } from '../../analytics/websites.ts';
import type { Website } from '../../analytics/websites.ts';
import type { ProofOutcome } from '../../ownership/proofs.ts';

/** The path of a website's proof of ownership. */
export const VERIFY_PATH = '/api/v1/websites/:id/verify';

/**
 * `POST /api/v1/websites/{id}/verify`: runs the proof that the key's user owns the website's
 * domain (the TXT record `_shortlink.<domain>`, else the file `https://<domain>/.well-known/shortlink-verify.txt`);
 * when it holds, this website receives the domain's events from now on, taken from any other
 * website of the domain. A proof that fails is a 422 naming both ways, and changes nothing.
 */
export function websiteVerifyRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(VERIFY_PATH, async (c) => {
    const user = c.get('user');
    const website = await findVisible<Website>(s, websites, c.req.param('id'), user.id);
    const record = await s.proofs.txtRecord(website.domain, user);
    const file = await s.proofs.tokenFile(website.domain, user);
    let outcome: ProofOutcome = await s.proofs.checkTxt(record);
    if (outcome !== 'proven') {
      const byFile = await s.proofs.checkFile(file);
      outcome = byFile === 'proven' || outcome === 'absent' ? byFile : outcome;
    }
    if (outcome !== 'proven') {
      const why = outcome === 'unreachable' ? 'The domain could not be verified: its TXT records or its token file could not be read.' : 'The domain could not be verified.';
      const message = `${why} Publish a DNS TXT record named ${record.name} with the value ${record.value}, or serve ${file.url} containing ${file.content}, then try again.`;
      throw new ApiError(422, message, { domain: [message] });
    }
    const now = laravelTime(s.clock.now());
    const verified = await transact(
      s,
      websites,
      async (tx) => {
        const taken = await takeOverDomain<Website>(tx, website.id, now);
        if (!taken) throw new ApiError(404, websites.messages.notFound);
        return taken;
      },
      RECEIVING_INDEX,
    );
    return c.json({ data: websiteEntry(verified), status: 200 });
  });
  return routes;
}
