import * as v from 'valibot';
import { websites } from '../analytics/websites.ts';
import { domains } from '../resources/domains.ts';
import { str } from '../resources/shapes.ts';
import { verificationQuery } from '../routes/link-api/domain-verification.ts';
import { VERIFY_PATH } from '../routes/analytics/website-verify.ts';
import { queryParams } from './analytics-operations.ts';
import type { Components } from './components.ts';
import { linkSuccessSchema, ref } from './components.ts';
import { shapeSchema } from './json-schema.ts';
import { entryRef, titleOf } from './link-operations.ts';
import type { OpSpec } from './operation.ts';

const txtRecordShape = v.strictObject({ name: str, type: v.literal('TXT'), value: str });

/** The proofs of ownership: the TXT record a user publishes (link API), and a website's proof (analytics API). */
export function ownershipOperations(c: Components): OpSpec[] {
  const record = c.schema('DomainVerification', () => linkSuccessSchema({ data: v.strictObject({ domain: str, record: txtRecordShape, required: v.boolean() }) }));
  const verified = c.schema('WebsiteVerified', () => ({ type: 'object', properties: { data: entryRef(websites, c), status: { const: 200 } }, required: ['data', 'status'], additionalProperties: false }));
  return [
    {
      tag: titleOf(domains).tag,
      dialect: 'link',
      operationId: 'getDomainVerification',
      method: 'get',
      path: '/api/domains/verification',
      summary: 'The DNS TXT record that proves you own a host name',
      description:
        'Publish it before adding the host as a branded domain when the server runs with `DOMAIN_CHECK=txt` (`required` says whether it does), or to verify a website of that domain. ' +
        'The value holds your ownership token: one per user, the same for every host, never changing; it proves nothing for any other user. Asking stores nothing.',
      query: queryParams(verificationQuery, { domain: 'go.example.com' }),
      responses: { '200': { description: 'The record: `name` (`_shortlink.<host>`), `type` (`TXT`) and `value` (`shortlink-verify=<token>`).', schema: record } },
    },
    {
      tag: titleOf(websites).tag,
      dialect: 'analytics',
      operationId: 'verifyWebsite',
      method: 'post',
      path: VERIFY_PATH,
      summary: "Prove you own a website's domain, and receive its events",
      description:
        "Several users may add a website of one domain; the domain's events go to one of them: its first website, until a user proves owning the domain here. " +
        'The proof is the DNS TXT record `_shortlink.<domain>` with the value `shortlink-verify=<token>` (see `GET /api/domains/verification`), or the file `https://<domain>/.well-known/shortlink-verify.txt` holding the token ' +
        '(fetched from public addresses only, redirects to HTTPS only, at most 1 KiB, 5 seconds). When it holds, this website receives the domain\'s events from now on (`receives_events`), taken from the website that had them, which keeps its statistics. ' +
        'A proof that fails is a 422 naming the record and the file, and changes nothing.',
      responses: {
        '200': { description: 'The website, verified now and receiving the events.', schema: verified },
        '422': { description: 'The proof did not hold: `message.domain` says what to publish.', schema: ref('AnalyticsValidationError') },
      },
    },
  ];
}
