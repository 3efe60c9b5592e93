/**
 * Descriptions and notes as the pages show them: Markdown rendered by markdown-it with raw HTML
 * off (a `<script>` in a body is text), and links only to the web's own schemes — relative
 * paths, anchors, http(s) and mailto — so `javascript:` and `data:` never become a link or an
 * image. Links leave without the page's address and without the page's authority.
 */
import MarkdownIt from 'markdown-it';
import { type Html, trusted } from './html.js';

const SAFE_LINK = /^(?:https?:|mailto:|[^:]*$|[^:]*[/?#])/i;

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

markdown.validateLink = (url: string): boolean => {
  // Browsers ignore tabs, newlines and leading spaces in a scheme: judge what they would read.
  // eslint-disable-next-line no-control-regex -- the characters browsers strip from a URL
  const seen = url.replace(/[\u0000-\u0020]/g, '');
  return SAFE_LINK.test(seen);
};

const defaultLinkOpen =
  markdown.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));

markdown.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** A body as HTML; markdown-it escapes all text, and raw HTML stays text. */
export function renderMarkdown(source: string): Html {
  return trusted(markdown.render(source));
}
