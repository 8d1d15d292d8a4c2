import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiError } from '../errors.ts';
import type { Page } from '../html/page.ts';
import { escapeHtml, htmlPage } from '../html/page.ts';
import { pageHeaders } from '../html/page-headers.ts';
import { isApiPath } from './error-body.ts';

/**
 * Whether an Accept header names HTML (with a q above 0). Browsers opening a page send
 * `text/html,…`; curl and a script's fetch() accept any type without naming one, and stay on JSON.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'text/html' && type !== 'application/xhtml+xml') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Whether an error is answered with a page: a browser (Accept names HTML) on a path outside the two
 * APIs. Under /api every answer is JSON, whatever Accept says: clients of the real products parse it.
 */
export function wantsPage(c: Context): boolean {
  return !isApiPath(c.req.path) && acceptsHtml(c.req.header('accept'));
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  403: 'Not allowed',
  405: 'Not allowed',
  409: 'Please try again',
  413: 'Too large',
  415: 'Not accepted',
  429: 'Too many requests',
  503: 'Please try again',
};

/** The page of an error status, in the look of the other pages; 404 has words of its own (the API's "Endpoint not found." means nothing to a visitor). */
export function errorPage(status: number, message: string): Page {
  if (status === 404) {
    return htmlPage('Page not found', '<main><h1>Page not found</h1><p>There is nothing at this address.</p><p class="muted"><a href="/">Home</a> · <a href="/docs">API reference</a></p></main>');
  }
  const title = TITLES[status] ?? 'Something went wrong';
  return htmlPage(title, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main>`);
}

/** An error as a page, with the pages' security headers; headers set before (Allow, Retry-After) stay. */
export function renderErrorPage(c: Context, err: ApiError): Response {
  const page = errorPage(err.status, err.message);
  return c.html(page.html, err.status as ContentfulStatusCode, { ...pageHeaders(page), 'Cache-Control': 'no-store' });
}
