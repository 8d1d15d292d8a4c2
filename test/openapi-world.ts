import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { OpenApiDocument } from '../src/openapi/document.ts';
import type { Config } from '../src/config.ts';
import { ADMIN_KEY, openTestStore, testApp } from './helpers.ts';
import { copyOfTestStore, TEST_BACKEND } from './backend.ts';
import type { Store } from '../src/store/store.ts';
import { OwnershipProofs } from '../src/ownership/proofs.ts';
import type { UserRecord } from '../src/resources/define.ts';
import type { Reply } from './helpers.ts';

/** A documented operation. */
export interface DocOp {
  path: string;
  method: string;
  op: Record<string, any>; // eslint-style escape: an operation object of the document, read field by field
}

/** The operations of a document. */
export function operationsOf(doc: OpenApiDocument): DocOp[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
}

/** Checks responses against the document: status documented, content type, body schema, rate-limit headers. */
export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  /** `METHOD path status` of every response checked. */
  readonly seen = new Set<string>();

  constructor(private readonly doc: OpenApiDocument) {
    // ajv-formats is CommonJS: its default export arrives as the module object or the plugin itself.
    const plugin = (formats as unknown as { default?: typeof formats }).default ?? formats;
    (plugin as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  }

  private validator(pointer: string, schema: object): ValidateFunction {
    let fn = this.compiled.get(pointer);
    if (!fn) {
      // Refs point into the document's components: resolve them against the registered copy.
      const rebased = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/'));
      fn = this.ajv.compile(rebased);
      this.compiled.set(pointer, fn);
    }
    return fn;
  }

  /** The validation errors of `value` against a schema of the document, or null when it is valid. */
  errors(schema: object, value: unknown): string | null {
    const validate = this.validator(JSON.stringify(schema), schema);
    return validate(value) ? null : JSON.stringify(validate.errors);
  }

  /** Asserts that `reply` to `o` is a documented response and matches its schema and headers. */
  check(o: DocOp, reply: Reply, what: string): void {
    const label = `${o.method.toUpperCase()} ${o.path} (${what}) → ${reply.status} ${reply.text.slice(0, 200)}`;
    const documented = o.op.responses[String(reply.status)];
    assert.ok(documented, `undocumented status: ${label}`);
    this.seen.add(`${o.method} ${o.path} ${reply.status}`);
    const content = Object.entries((documented.content ?? {}) as Record<string, { schema?: object }>);
    const sent = reply.headers.get('content-type') ?? '';
    const [type, media] = content.find(([t]) => sent.startsWith(t)) ?? content[0] ?? [];
    if (!type) {
      assert.equal(reply.text, '', `documented without a body: ${label}`);
    } else {
      assert.ok(sent.startsWith(type), `content type ${sent} is not ${content.map(([t]) => t).join(' or ')}: ${label}`);
      if (media?.schema) {
        const validate = this.validator(`${o.method} ${o.path} ${reply.status}`, media.schema);
        assert.ok(validate(reply.body), `${label}\n${JSON.stringify(validate.errors, null, 1)}`);
      }
    }
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) {
      if (reply.headers.has(header)) assert.ok(documented.headers?.[header], `header ${header} not documented: ${label}`);
    }
  }
}

type World = Awaited<ReturnType<typeof buildWorld>>;

// On PostgreSQL, the world built first for some settings, kept as it was built: later worlds with
// those settings are copies of its rows (copyOfTestStore), far cheaper than building each through the app.
const templates = new Map<string, Promise<World>>();

/**
 * An app with one record of every kind owned by a user, and the values that fill path parameters:
 * each world a store of its own, as if built afresh (on PostgreSQL a copy of the first one built).
 */
export async function world(overrides: Partial<Config> = {}): Promise<World> {
  if (TEST_BACKEND !== 'postgres') return buildWorld(overrides);
  const key = JSON.stringify(overrides);
  let template = templates.get(key);
  if (!template) {
    template = buildWorld(overrides).then(async (w) => {
      // Everything it holds in memory stored, and nothing of it running any more: it is only copied.
      await w.audit.flush();
      await w.keyUses.flush();
      w.counters.discard();
      w.audit.discard();
      w.keyUses.discard();
      await w.webhooks.stop();
      return w;
    });
    templates.set(key, template);
  }
  const made = await template;
  const store = (await copyOfTestStore(made.store))!;
  const txt = new Map(made.txt);
  const t = await testApp(worldConfig(overrides), { store, proofs: proofsOn(store, txt) });
  // What a test may change of a world is its own: a key rotated, a proof withdrawn.
  const alice = { ...made.alice };
  return { ...made, ...t, alice, keyFor: keyOf(alice), ids: { ...made.ids }, txt };
}

const worldConfig = (overrides: Partial<Config>): Partial<Config> => ({ openRegistration: true, rateLimit: 100_000, analyticsRateLimit: 100_000, bodyLimit: 4096, bulkBodyLimit: 4096, fileMaxBytes: 4096, importMaxBytes: 4096, ...overrides });

/** The key an operation is called with: the admin's for admin operations, else the user's (as it is now: a test may rotate it). */
const keyOf = (alice: { key: string }) => (o: DocOp) => (o.op['x-admin'] ? ADMIN_KEY : alice.key);

/** Proofs of ownership that look up TXT records in `txt`: a DNS of the world's own. */
function proofsOn(store: Store, txt: Map<string, string[][]>): OwnershipProofs {
  const resolveTxt = async (name: string) => txt.get(name) ?? Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' }));
  return new OwnershipProofs(store, { resolveTxt, fetch: async () => new Response(null, { status: 404 }) });
}

async function buildWorld(overrides: Partial<Config>) {
  // A DNS of the world's own: the fixture website's domain has its user's TXT record.
  const txt = new Map<string, string[][]>();
  const store = await openTestStore();
  const proofs = proofsOn(store, txt);
  const t = await testApp(worldConfig(overrides), { store, proofs });
  const alice = await t.makeUser('alice');
  const proof = await proofs.txtRecord('fixture.example.org', (await store.get<UserRecord>('users', alice.id))!);
  txt.set(proof.name, [[proof.value]]);
  const add = async (path: string, body: unknown, key = alice.key) => {
    const r = await t.call('POST', path, { key, body, headers: path.startsWith('/api/v1') ? { accept: 'application/json' } : {} });
    assert.ok(r.status < 300, `${path}: ${r.text}`);
    return (r.body.id ?? r.body.data.id) as number;
  };
  const campaign = await add('/api/campaign/add', { name: 'Fixture campaign', slug: 'fixture-camp', public: true });
  const qr = await t.call('POST', '/api/qr/add', { key: alice.key, body: { type: 'link', data: 'https://example.com/qr-target', name: 'Fixture QR' } });
  const ids: Record<string, number> = {
    user: alice.id,
    url: await add('/api/url/add', { url: 'https://example.com/target', custom: 'fixture', campaign }),
    qr: qr.body.id,
    pixel: await add('/api/pixel/add', { type: 'gapixel', name: 'Fixture pixel', tag: 'G-1' }),
    campaign,
    channel: await add('/api/channel/add', { name: 'Fixture channel' }),
    bio: await add('/api/bio/add', { name: 'Fixture bio', alias: 'fixture-bio' }),
    domain: await add('/api/domain/add', { domain: 'https://fixture.example.net' }),
    overlay: await add('/api/overlay/add', { type: 'message', name: 'Fixture overlay' }),
    splash: await add('/api/splash/add', { name: 'Fixture splash' }),
    websites: await add('/api/v1/websites', { domain: 'fixture.example.org' }),
  };
  const file = await t.call('POST', '/api/files/upload/fixture.txt', { key: alice.key, raw: 'A fixture file.\n' });
  assert.equal(file.status, 200, file.text);
  ids.files = file.body.id;
  const imported = await t.call('POST', '/api/import?format=csv', { key: alice.key, raw: 'url,alias\nhttps://example.com/imported,fixture-import\n', headers: { 'content-type': 'text/csv' } });
  assert.equal(imported.status, 202, imported.text);
  ids.import = imported.body.id;
  ids.stats = ids.websites!;
  ids.webhooks = await add('/api/webhooks', { url: 'https://hooks.example.com/fixture', events: ['*'] });
  const ping = await t.call('POST', `/api/webhooks/${ids.webhooks}/test`, { key: alice.key });
  assert.equal(ping.status, 202, ping.text);
  // Scoped keys: one to name in /api/keys/{id}, and keys without an operation's scope, or from elsewhere.
  const scoped = async (owner: string, scopes: string[], ips?: string[]) => {
    const r = await t.call('POST', '/api/keys', { key: owner, body: { name: 'Fixture key', scopes, ...(ips ? { ips } : {}) } });
    assert.equal(r.status, 200, r.text);
    return r.body as { id: number; apikey: string };
  };
  ids.keys = (await scoped(alice.key, ['links:read'])).id;
  const narrow = {
    user: (await scoped(alice.key, ['audit:read'])).apikey,
    auditless: (await scoped(alice.key, ['links:read'])).apikey,
    admin: (await scoped(ADMIN_KEY, ['links:read'])).apikey,
    // app.request() has no client address: a key limited to some is refused.
    elsewhere: (await scoped(alice.key, ['*'], ['203.0.113.0/24'])).apikey,
  };
  // The dashboard's ids (/app/links/:id, /app/account/sessions/:id) name the fixture link.
  ids.app = ids.url!;
  const values: Record<string, string> = {
    campaignid: String(campaign),
    linkid: String(ids.url),
    channelid: String(ids.channel),
    itemid: String(ids.url),
    type: 'links',
    slug: 'fixture-camp',
    ref: `fixture-camp-${campaign}`,
    username: 'user_alice',
    planid: '2',
    userid: String(alice.id),
    domain: 'fixture.example.org',
    filename: 'notes.txt',
    deliveryId: String(ping.body.id),
  };
  /** The value of a path parameter in `path`: `id` by the segment that names the resource. */
  const param = (path: string, name: string): string => {
    if (name === 'alias') return path.startsWith('/qr/') ? String(qr.body.link).split('/').pop()! : path.startsWith('/u/') ? 'fixture-bio' : 'fixture';
    if (name !== 'id') return values[name] ?? assert.fail(`no value for :${name}`);
    const segment = path.startsWith('/app/') ? 'app' : path.replace(/^\/api\/(v1\/)?/, '').split('/')[0]!;
    return String(ids[segment] ?? assert.fail(`no fixture for ${path}`));
  };
  /** A key of the same user without the scope the operation needs. */
  const lacking = (o: DocOp) => (o.op['x-admin'] ? narrow.admin : o.op.security?.[0]?.bearer?.[0] === 'audit:read' ? narrow.auditless : narrow.user);
  return { ...t, alice, ids, param, keyFor: keyOf(alice), lacking, elsewhere: narrow.elsewhere, txt };
}
