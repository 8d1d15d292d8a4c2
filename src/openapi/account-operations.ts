import * as v from 'valibot';
import { updateSchema } from '../resources/define.ts';
import { campaigns } from '../resources/campaigns.ts';
import { channels } from '../resources/channels.ts';
import { userFields, users } from '../resources/users.ts';
import { ITEM_KINDS } from '../routes/link-api/channels.ts';
import type { Components } from './components.ts';
import { linkListSchema, linkSuccessSchema, ref } from './components.ts';
import { inputSchema, shapeSchema } from './json-schema.ts';
import type { OpSpec } from './operation.ts';
import { PAGE_PARAMS, titleOf } from './link-operations.ts';
import { accountShape, channelItemShape } from './shapes.ts';

// The bodies of src/routes/link-api/account.ts and register.ts, rebuilt from the same field schemas.
const rotateBody = v.object({ expires: v.optional(userFields.keyexpires) });
const registerBody = v.object({ email: userFields.email, username: userFields.username, password: userFields.password });

const message = (text: string) => ({ description: `"${text}"`, schema: ref('Message') });

/** The link-management operations outside the generic routes: account, key rotation, sign-up, assignments, channel items. */
export function accountOperations(c: Components): OpSpec[] {
  const rotated = c.schema('KeyRotated', () => linkSuccessSchema({ message: v.string(), apikey: v.string() }));
  const rotate = { ...c.body('RotateKey', () => inputSchema(rotateBody)), example: { expires: '2027-12-31 23:59:59' } };
  const account = { tag: 'Account', dialect: 'link' as const };
  const campaignTag = titleOf(campaigns).tag;
  const channelTag = titleOf(channels).tag;
  return [
    {
      ...account,
      operationId: 'getAccount',
      method: 'get',
      path: '/api/account',
      summary: 'Get the account of the key',
      responses: { '200': { description: 'The account.', schema: c.schema('Account', () => linkSuccessSchema({ data: accountShape })) } },
    },
    {
      ...account,
      operationId: 'updateAccount',
      method: 'put',
      path: '/api/account/update',
      summary: 'Update the email or password of the account',
      body: { ...c.body('AccountUpdate', () => inputSchema(updateSchema(users))), example: { email: 'new@example.com', password: 'a-new-password' } },
      responses: { '200': { description: '"Account has been successfully updated." or "No changes were done to the account."', schema: ref('Message') } },
    },
    {
      ...account,
      operationId: 'rotateAccountKey',
      method: 'post',
      path: '/api/account/rotate-key',
      summary: 'Replace the API key of the account',
      description: 'The old key stops working at once; the new key is shown only in this response. `expires` (optional) sets when the new key expires.',
      body: rotate,
      responses: { '200': { description: 'The new key.', schema: rotated } },
    },
    {
      ...account,
      tag: titleOf(users).tag,
      admin: true,
      operationId: 'rotateUserKey',
      method: 'post',
      path: '/api/user/:id/rotate-key',
      summary: "Replace a user's API key (admin)",
      body: rotate,
      responses: { '200': { description: 'The new key.', schema: rotated }, '404': { description: users.messages.notFound, schema: ref('LinkError') } },
    },
    {
      ...account,
      dialect: 'public',
      operationId: 'register',
      method: 'post',
      path: '/api/register',
      summary: 'Sign up (when OPEN_REGISTRATION is on)',
      description: 'Needs no key. Answers 404 when OPEN_REGISTRATION is off. Sign-ups count against the failed-authentication budget of the client IP.',
      body: { ...c.body('Register', () => inputSchema(registerBody)), example: users.example(1) },
      errors: [400, 404, 413, 415, 429],
      responses: { '200': { description: 'The new user and its API key (shown once).', schema: c.schema('Registered', () => linkSuccessSchema({ id: v.pipe(v.number(), v.integer()), apikey: v.string() })) } },
    },
    {
      tag: campaignTag,
      dialect: 'link',
      operationId: 'assignCampaign',
      method: 'post',
      path: '/api/campaign/:campaignid/assign/:linkid',
      summary: 'Put a short link in a campaign',
      description: 'A link is in at most one campaign: assigning moves it.',
      responses: { '200': message('Link successfully added to the campaign.'), '404': { description: `"${campaigns.messages.notFound}" or "Link not found. Please try again."`, schema: ref('LinkError') } },
    },
    {
      tag: channelTag,
      dialect: 'link',
      operationId: 'listChannelItems',
      method: 'get',
      path: '/api/channel/:id',
      summary: 'List the items of a channel',
      description: 'Links, bio pages and QR codes in the channel, newest first, under `data.items`.',
      query: PAGE_PARAMS,
      responses: {
        '200': { description: 'A page of the items.', schema: c.schema('ChannelItemList', () => linkListSchema('items', c.schema('ChannelItem', () => shapeSchema(channelItemShape)))) },
        '404': { description: channels.messages.notFound, schema: ref('LinkError') },
      },
    },
    {
      tag: channelTag,
      dialect: 'link',
      operationId: 'assignChannel',
      method: 'post',
      path: '/api/channel/:channelid/assign/:type/:itemid',
      summary: 'Add an item to a channel',
      description: 'An item may be in several channels.',
      pathParams: { type: { description: 'The kind of item.', schema: { type: 'string', enum: Object.keys(ITEM_KINDS) } } },
      errors: [400],
      responses: {
        '200': message('Item successfully added to the channel.'),
        '400': { description: 'An unknown `type`, or "This item is already added to the selected channel."', schema: ref('LinkError') },
      },
    },
  ];
}
