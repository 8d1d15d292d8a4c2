import * as v from 'valibot';
import { LOGIN_LINK_TTL_MS } from '../auth/login-links.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../http/pagination.ts';
import { PLANS } from '../resources/plans.ts';
import { links } from '../resources/links.ts';
import { int, str } from '../resources/shapes.ts';
import { users, userEntryShape } from '../resources/users.ts';
import { MAX_REASON, NOT_SELF } from '../resources/user-disable.ts';
import { ACCOUNT_DISABLED } from '../auth/disabled-users.ts';
import type { Components } from './components.ts';
import { linkSuccessSchema, ref } from './components.ts';
import { bodySchema, shapeSchema } from './json-schema.ts';
import { pascal, titleOf } from './link-operations.ts';
import type { OpSpec, Reply } from './operation.ts';

const notFound = (message: string): Reply => ({ description: message, schema: ref('LinkError') });
const idBody = (field: string, what: string, example: number) => ({
  schema: { type: 'object', properties: { [field]: { type: 'integer', minimum: 1, description: `The id of the ${what} (a number, or its text).` } }, required: [field] },
  example: { [field]: example },
});

const planShape = v.strictObject({
  id: int,
  name: str,
  free: v.boolean(),
  features: v.strictObject({ pageviews: int, websites: int, api: v.boolean(), data_export: v.boolean() }),
});

/** Disable and enable a user: this server's extension to the product's user endpoints (docs/compatibility.md). */
function disableOperations(c: Components, tag: string, userName: string): OpSpec[] {
  const changed = c.schema(`${userName}StateChanged`, () => linkSuccessSchema({ message: str, data: v.strictObject(userEntryShape) }));
  const answer = (message: string) => ({ description: message, schema: changed });
  return [
    {
      tag, dialect: 'link', admin: true, operationId: 'disableUser', method: 'post', path: '/api/user/:id/disable', summary: 'Disable a user (admin)',
      description: `Every API key of the user then answers 403 "${ACCOUNT_DISABLED}", their dashboard sessions end and they cannot sign in; their short links, files, bio and campaign pages answer as missing ones. Nothing is deleted; \`/enable\` undoes it. \`reason\` (at most ${MAX_REASON} characters) is shown to admins only. On PostgreSQL the answer comes once no server process still accepts the user's keys.`,
      body: { schema: { type: 'object', properties: { reason: { type: ['string', 'null'], maxLength: MAX_REASON } } }, example: { reason: 'Spam links' } },
      responses: { '200': answer('"User has been disabled.", and the user.'), '400': notFound(`"${NOT_SELF}", or a reason that is too long.`), '404': notFound(users.messages.notFound) },
    },
    {
      tag, dialect: 'link', admin: true, operationId: 'enableUser', method: 'post', path: '/api/user/:id/enable', summary: 'Enable a disabled user again (admin)',
      description: 'Their keys, sign-ins and links work again (sessions ended by disabling stay ended).',
      responses: { '200': answer('"User has been enabled.", and the user.'), '404': notFound(users.messages.notFound) },
    },
  ];
}

/**
 * The calls of the vendor's PHP wrapper (POST twins of v3 operations, answered the same), plans,
 * one-time sign-in links and the API index: what real clients of the product call beyond the reference.
 */
export function compatOperations(c: Components): OpSpec[] {
  const linkTag = titleOf(links).tag;
  const userTag = titleOf(users).tag;
  const [linkName, userName] = [pascal(links.name), pascal(users.name)];
  const wrapper = 'Sent by the vendor\'s PHP wrapper; answers exactly what';
  const index = c.schema('ApiIndex', () => shapeSchema(v.strictObject({ error: v.literal(0), name: str, version: str, docs: str, openapi: str })));
  const indexOp = (operationId: string, path: string): OpSpec => ({
    tag: 'Account', dialect: 'public', operationId, method: 'get', path, summary: 'The API index: name, version and where the docs are', description: 'Needs no key.', responses: { '200': { description: 'The index.', schema: index } },
  });
  return [
    {
      tag: linkTag, dialect: 'link', operationId: 'listLinksWrapper', method: 'post', path: '/api/url/get', summary: 'List short links (vendor wrapper)',
      description: `${wrapper} \`GET /api/urls?limit&page&order\` does, read as leniently: \`limit\` (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}) and \`page\` that are not positive integers are the defaults, an \`order\` other than \`click\` means date.`,
      body: {
        schema: { type: 'object', properties: { limit: { type: ['integer', 'string'] }, page: { type: ['integer', 'string'] }, order: { type: 'string', enum: ['date', 'click'] } } },
        example: { limit: 10, page: 1, order: 'date' },
      },
      responses: { '200': { description: 'A page of the list.', schema: ref(`${linkName}List`) } },
    },
    {
      tag: linkTag, dialect: 'link', operationId: 'getLinkWrapper', method: 'post', path: '/api/url/stats', summary: 'Get a short link and its statistics (vendor wrapper)',
      description: `${wrapper} \`GET /api/url/:id\` does.`,
      body: idBody('urlid', 'short link', 1),
      responses: { '200': { description: 'The short link.', schema: ref(`${linkName}Single`) }, '404': notFound(links.messages.notFound) },
    },
    {
      tag: userTag, dialect: 'link', admin: true, operationId: 'createUserWrapper', method: 'post', path: '/api/user/create', summary: 'Create a user (vendor wrapper)',
      description: `${wrapper} \`POST /api/user/add\` does.`,
      body: { ...c.body(`${userName}Create`, () => bodySchema(users, 'create')), example: users.example(1) },
      responses: { '200': { description: 'The user was created; its key is shown this once.', schema: ref(`${userName}Created`) } },
    },
    {
      tag: userTag, dialect: 'link', admin: true, operationId: 'getUserWrapper', method: 'post', path: '/api/user/get', summary: 'Get a user (vendor wrapper)',
      description: `${wrapper} \`GET /api/user/:id\` does.`,
      body: idBody('userid', 'user', 1),
      responses: { '200': { description: 'The user.', schema: ref(`${userName}Single`) }, '404': notFound(users.messages.notFound) },
    },
    {
      tag: userTag, dialect: 'link', admin: true, operationId: 'getUserLoginLink', method: 'get', path: '/api/user/login/:id', summary: 'A one-time sign-in link for a user (admin)',
      description: `The server has no web interface: the link opens a page on which the user takes a new API key, shown once (their old key stops working). It works once, for ${LOGIN_LINK_TTL_MS / 60_000} minutes; a new link replaces the previous one. Only a hash of its secret is stored.`,
      responses: {
        '200': { description: 'The link and when it expires.', schema: c.schema('LoginLink', () => linkSuccessSchema({ url: str, expires: str })) },
        '404': notFound(users.messages.notFound),
      },
    },
    ...disableOperations(c, userTag, userName),
    {
      tag: 'Plans', dialect: 'link', operationId: 'listPlans', method: 'get', path: '/api/plans', summary: 'The plans of the server',
      description: `${PLANS.map((p) => `${p.id} ${p.name}`).join(', ')}. No plan limits are enforced: every feature is unlimited (-1) or on.`,
      responses: { '200': { description: 'Every plan.', schema: c.schema('PlanList', () => linkSuccessSchema({ data: v.array(planShape) })) } },
    },
    {
      tag: 'Plans', dialect: 'link', admin: true, operationId: 'assignPlan', method: 'put', path: '/api/plan/:planid/user/:userid', summary: 'Put a user on a plan (admin)',
      description: 'The user\'s `planid` becomes the plan\'s, and its `status` "free" or "pro" as the plan is free or not.',
      responses: { '200': { description: '"User has been subscribed to this plan."', schema: ref('Message') }, '404': notFound('"Plan does not exist." or "User does not exist."') },
    },
    indexOp('getApiIndex', '/api/'),
    indexOp('getApiIndexBare', '/api'),
  ];
}
