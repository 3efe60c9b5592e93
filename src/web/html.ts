/**
 * Server-rendered HTML: a tagged template that escapes every interpolated value unless it is
 * already `Html`, one page layout, and the headers every page carries (no framing, no referrer,
 * no third-party anything but Gravatar's avatars where the instance allows them, never cached —
 * pages carry CSRF tokens and one-time secrets).
 */
import type { FastifyReply } from 'fastify';
import { SIGNED_OUT_LINKS, type SiteLink, siteLinks } from '../http/site-nav.js';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/**
 * A URL that may wrap: a break opportunity after each path slash and before the query and its
 * parts, so a long redirect URI wraps at its seams rather than mid-word (CSS still breaks a
 * segment that alone is wider than its box).
 */
export function breakableUrl(url: string): Html {
  const parts = url.split(/(?<=[^/:]\/(?!\/))|(?=[?&#])/);
  return new Html(parts.map(escapeHtml).join('<wbr />'));
}

/** Trusted markup produced by a library we control the input of (the QR code's SVG). */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** The policy of a page; `images`: sources its `img-src` adds (avatars, when Gravatar is on). */
export function contentSecurityPolicy(images: readonly string[] = []): string {
  return [
    "default-src 'none'",
    // One script of ours (copy.js: the copy buttons); pages work without it.
    "script-src 'self'",
    "style-src 'self'",
    ["img-src 'self' data:", ...images].join(' '),
    // The activity pages fetch new rows and subscribe over a WebSocket, on this origin only.
    "connect-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface Nav {
  username: string;
  csrf: string;
}

/** An Atom feed a page announces (feed readers and browsers discover it in the head). */
export interface FeedLink {
  href: string;
  title: string;
}

export interface LayoutOptions {
  /** Scripts of ours a page adds after copy.js (same origin: the policy allows nothing else). */
  scripts?: readonly string[];
  feeds?: readonly FeedLink[];
  /** Room for a table of several columns (up to 80rem instead of 60rem). */
  wide?: boolean;
}

function navLink(link: SiteLink): Html {
  return html`<a href="${link.href}">${link.label}</a>`;
}

export function layout(
  title: string,
  body: Html,
  nav: Nav | null = null,
  options: LayoutOptions = {},
): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · pulsegate</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/style.css" />
        ${(options.feeds ?? []).map(
          (feed) =>
            html`<link
              rel="alternate"
              type="application/atom+xml"
              title="${feed.title}"
              href="${feed.href}"
            />`,
        )}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">pulsegate</a>
          ${
            nav
              ? html`<input type="checkbox" id="nav-toggle" class="nav-toggle" />
                  <label for="nav-toggle" class="nav-toggle" aria-label="Menu">Menu</label>
                  <nav>
                    ${siteLinks(nav.username).map(navLink)}
                    <form method="post" action="/users/sign_out" class="inline">
                      <input type="hidden" name="authenticity_token" value="${nav.csrf}" />
                      <button type="submit" class="link">Sign out ${nav.username}</button>
                    </form>
                  </nav>`
              : html`<nav class="signed-out">${SIGNED_OUT_LINKS.map(navLink)}</nav>`
          }
        </header>
        <main ${options.wide ? html`class="wide"` : ''}>${body}</main>
        <script src="/assets/copy.js" defer></script>
        ${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </body>
    </html> `;
}

export function sendHtml(
  reply: FastifyReply,
  status: number,
  page: Html,
  images: readonly string[] = [],
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', contentSecurityPolicy(images))
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send(page.value);
}

export function errorPage(title: string, description: string | Html, nav: Nav | null = null): Html {
  return layout(
    title,
    html`<section class="card error">
      <h1>${title}</h1>
      <p>${description}</p>
    </section>`,
    nav,
  );
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="authenticity_token" value="${token}" />`;
}

export function messages(items: readonly string[], kind: 'error' | 'notice' = 'error'): Html {
  if (items.length === 0) return html``;
  return html`<div class="flash ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">
    <ul>
      ${items.map((m) => html`<li>${m}</li>`)}
    </ul>
  </div>`;
}

/**
 * A button that copies the text of the element `targetId` (copy.js shows it; without JavaScript
 * it stays hidden and the text is selected by hand).
 */
export function copyButton(targetId: string, label: string): Html {
  return html`<button type="button" class="copy secondary" data-copy="${targetId}" hidden>
    Copy ${label}
  </button>`;
}

/**
 * The confirmation step before a destructive action, as a page of its own: works without
 * JavaScript, and the action itself stays a POST with the form token.
 */
export function confirmPage(options: {
  title: string;
  question: Html;
  consequence: string;
  action: string;
  button: string;
  cancel: string;
  csrf: string;
  nav: Nav;
}): Html {
  return layout(
    options.title,
    html`<section class="card narrow confirm">
      <h1>${options.title}</h1>
      <p>${options.question}</p>
      <p class="muted">${options.consequence}</p>
      <form method="post" action="${options.action}">
        ${csrfField(options.csrf)}
        <div class="actions">
          <button type="submit" class="danger-primary">${options.button}</button>
          <a class="button secondary" href="${options.cancel}">Cancel</a>
        </div>
      </form>
    </section>`,
    options.nav,
  );
}
