import type { Context } from 'hono';
import { chromeOf } from '../guard.ts';
import { answerPage, Csrf, Layout } from '../layout.tsx';
import type { SignedIn } from '../sessions.ts';

/** The hidden field a delete form carries: `yes` once the person confirmed (the script's question, or the page below). */
export const CONFIRMED = 'confirmed';

/** The hidden field of a delete form that the script sets to `yes` when its question is answered OK. */
export function ConfirmedField() {
  return <input type="hidden" name={CONFIRMED} value="" />;
}

/**
 * The question a delete asks without the script (which asks it in a box before the form goes): the
 * same form again, confirmed, with its own fields, and a way back.
 */
export function confirmDeletePage(c: Context, who: SignedIn, p: { action: string; question: string; button: string; hidden: Record<string, string | readonly string[]>; back: string }): Promise<Response> {
  return answerPage(
    c,
    <Layout title="Delete?" chrome={chromeOf(who, '/app/links')}>
      <section class="card alert">
        <h1>{p.question}</h1>
        <p>It is deleted for good, with its statistics.</p>
        <form method="post" action={p.action} class="actions">
          <Csrf token={who.csrf} />
          <input type="hidden" name={CONFIRMED} value="yes" />
          {Object.entries(p.hidden).flatMap(([name, value]) => (typeof value === 'string' ? [value] : value).map((v) => <input type="hidden" name={name} value={v} />))}
          <button type="submit" class="danger">
            {p.button}
          </button>
          <a href={p.back}>Cancel</a>
        </form>
      </section>
    </Layout>,
  );
}
