import * as v from 'valibot';
import type { StoredRecord } from '../store/store.ts';
import { hexColor } from './channels.ts';
import { defineResource } from './define.ts';
import { urlOrEmpty } from './domains.ts';
import { date, int, str } from './shapes.ts';

/** Kinds of CTA overlay (values seen in the reference). */
export const OVERLAY_TYPES = ['message', 'contact'] as const;
/** Where an overlay sits on the page. */
export const OVERLAY_POSITIONS = ['bottom-left', 'bottom-right', 'top-left', 'top-right', 'center'] as const;
/** Inputs a contact overlay may ask for. */
export const CONTACT_FIELDS = ['name', 'email', 'phone', 'message'] as const;

const emailAddress = v.pipe(v.string(), v.maxLength(255), v.email());

/** Request fields of CTA overlays. */
export const overlayFields = {
  type: v.picklist(OVERLAY_TYPES, `Invalid type: must be one of ${OVERLAY_TYPES.join(', ')}.`),
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'Overlay name cannot be empty.'), v.maxLength(100, 'Overlay name must be at most 100 characters.')),
  message: v.pipe(v.string(), v.trim(), v.maxLength(1000, 'Overlay message must be at most 1000 characters.')),
  buttontext: v.pipe(v.string(), v.trim(), v.maxLength(60, 'Button text must be at most 60 characters.')),
  buttonlink: urlOrEmpty('Button link'),
  textcolor: hexColor,
  bgcolor: hexColor,
  buttoncolor: hexColor,
  position: v.picklist(OVERLAY_POSITIONS, `Invalid position: must be one of ${OVERLAY_POSITIONS.join(', ')}.`),
  // Contact overlays only: which inputs the form asks for, and where submissions go.
  fields: v.pipe(
    v.array(v.picklist(CONTACT_FIELDS, `Invalid fields: each must be one of ${CONTACT_FIELDS.join(', ')}.`)),
    v.minLength(1, 'A contact overlay must ask for at least one field.'),
    v.check((list) => new Set(list).size === list.length, 'Invalid fields: each field may appear only once.'),
  ),
  email: v.pipe(v.string(), v.trim(), v.check((s) => s === '' || v.is(emailAddress, s), 'Please enter a valid email.')),
};

/** A stored CTA overlay. */
export type Overlay = StoredRecord & { [K in keyof typeof overlayFields]: v.InferOutput<(typeof overlayFields)[K]> } & { date: string };

/** Every field of an overlay but its owner, for the single response. */
function overlayDetails(o: Overlay): Record<string, unknown> {
  const { id, type, name, message, buttontext, buttonlink, textcolor, bgcolor, buttoncolor, position, fields, email, date } = o;
  return { id, type, name, message, buttontext, buttonlink, textcolor, bgcolor, buttoncolor, position, fields, email, date };
}


const overlayDetailsShape = {
  id: int,
  type: v.picklist(OVERLAY_TYPES),
  name: str,
  message: str,
  buttontext: str,
  buttonlink: str,
  textcolor: str,
  bgcolor: str,
  buttoncolor: str,
  position: v.picklist(OVERLAY_POSITIONS),
  fields: v.array(v.picklist(CONTACT_FIELDS)),
  email: str,
  date,
};

/**
 * CTA overlays shown over a link's target. Only the list (`/api/overlay`, key `cta`) is in the
 * reference; get, add, update and delete are our extension so that users can have overlays at all.
 */
export const overlays = defineResource<typeof overlayFields, Overlay>({
  name: 'overlay',
  collection: 'overlays',
  api: 'link',
  scope: 'overlays',
  owned: true,
  extension: true,
  fields: overlayFields,
  create: {
    required: ['type', 'name'],
    defaults: {
      message: '',
      buttontext: '',
      buttonlink: '',
      textcolor: '#000000',
      bgcolor: '#FFFFFF',
      buttoncolor: '#000000',
      position: 'bottom-left',
      fields: ['name', 'email', 'message'],
      email: '',
    },
  },
  update: { required: [] },
  paths: { list: '/api/overlay', get: '/api/overlay/:id', create: '/api/overlay/add', update: '/api/overlay/:id/update', remove: '/api/overlay/:id/delete' },
  listKey: 'cta',
  shapes: { entry: { id: int, type: v.picklist(OVERLAY_TYPES), name: str, date }, single: { data: v.strictObject(overlayDetailsShape) } },
  searchable: ['name', 'message'],
  messages: { notFound: 'Overlay does not exist.', updated: 'Overlay has been updated successfully.', deleted: 'Overlay has been deleted successfully.' },
  example: (n) =>
    n % 2
      ? { type: 'contact', name: `Contact ${n}`, message: `Write to us (${n})`, fields: ['name', 'email'], email: `inbox${n}@example.com`, position: 'center' }
      : { type: 'message', name: `Message ${n}`, message: `Offer ${n}`, buttontext: 'Go', buttonlink: `https://example.com/offer-${n}`, bgcolor: '#112233', position: 'top-right' },
  entry: (o) => ({ id: o.id, type: o.type, name: o.name, date: o.date }),
  single: (o) => ({ data: overlayDetails(o) }),
});
