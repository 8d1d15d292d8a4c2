import type { Context } from 'hono';
import { chromeOf, field } from './guard.ts';
import type { Form, Screen } from './guard.ts';
import { answerPage, Csrf, Layout } from './layout.tsx';
import type { SignedIn } from './sessions.ts';

/** The hidden field a form that asks first carries: `yes` once the person confirmed (the script's question, or the page below). */
export const CONFIRMED = 'confirmed';

/** The hidden field of a `data-confirm` form that the script sets to `yes` when its question is answered OK. */
export function ConfirmedField() {
  return <input type="hidden" name={CONFIRMED} value="" />;
}

/**
 * A form of one button that deletes, revokes or signs out: it asks `question` first (the script's
 * box, or without JavaScript the page askFirst answers), with its CSRF token. `label` names the
 * button for screen readers where its text alone does not say what it acts on.
 */
export function AskFirstForm(props: { action: string; question: string; csrf: string; buttonClass?: string; label?: string; children: unknown }) {
  return (
    <form method="post" action={props.action} data-confirm={props.question}>
      <ConfirmedField />
      <Csrf token={props.csrf} />
      <button type="submit" class={props.buttonClass ?? 'danger'} aria-label={props.label}>
        {props.children}
      </button>
    </form>
  );
}

/** What the page that asks says and where its Cancel goes. */
export interface Question {
  question: string;
  /** What follows if the person goes on. */
  detail: string;
  button: string;
  back: string;
}

/**
 * The question a destructive form asks without the script (which asks it in a box before the form
 * goes): the same form again, confirmed, with the fields it came with, and a way back.
 */
export function askPage(c: Context, who: SignedIn, action: string, q: Question, form: Form): Promise<Response> {
  const fields = Object.entries(form).filter(([name]) => name !== 'csrf' && name !== CONFIRMED);
  return answerPage(
    c,
    <Layout title={q.button} chrome={chromeOf(who)}>
      <section class="card alert">
        <h1>{q.question}</h1>
        <p>{q.detail}</p>
        <form method="post" action={action} class="actions">
          <Csrf token={who.csrf} />
          <input type="hidden" name={CONFIRMED} value="yes" />
          {fields.flatMap(([name, value]) => (typeof value === 'string' ? [value] : value).map((v) => <input type="hidden" name={name} value={v} />))}
          <button type="submit" class="danger">
            {q.button}
          </button>
          <a href={q.back}>Cancel</a>
        </form>
      </section>
    </Layout>,
  );
}

/** `handler` once the form is confirmed; before that, the page that asks `question` of the request. */
export function askFirst(question: (c: Context, who: SignedIn) => Question, handler: Screen): Screen {
  return async (c, who, form, files) => (field(form, CONFIRMED) === 'yes' ? handler(c, who, form, files) : askPage(c, who, c.req.path, question(c, who), form));
}
