/** Atom 1.0 (RFC 4287) documents: every text escaped, every time RFC 3339 in UTC. */
import type { FeedEntry } from './entry.js';

export interface Feed {
  id: string;
  title: string;
  /** The feed's own URL, without credentials. */
  self: string;
  /** The page the feed mirrors. */
  alternate: string;
  /** The newest entry's time; the source's creation when there are none. */
  updated: number;
  entries: readonly FeedEntry[];
}

/** XML 1.0 forbids these code points outright (even escaped); they are dropped. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function entry(e: FeedEntry): string {
  // Atom wants an author on every entry; a deleted author is GitLab's "Ghost User".
  const author = e.author
    ? `<author><name>${escapeXml(e.author.name)}</name><uri>${escapeXml(e.author.uri)}</uri></author>`
    : '<author><name>Ghost User</name></author>';
  const summary = e.summary === null ? '' : `<summary>${escapeXml(e.summary)}</summary>`;
  return [
    '<entry>',
    `<id>${escapeXml(e.id)}</id>`,
    `<title>${escapeXml(e.title)}</title>`,
    `<link rel="alternate" type="text/html" href="${escapeXml(e.link)}"/>`,
    `<updated>${time(e.updated)}</updated>`,
    author,
    summary,
    '</entry>',
  ].join('');
}

export function renderAtom(feed: Feed): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${escapeXml(feed.id)}</id>`,
    `<title>${escapeXml(feed.title)}</title>`,
    `<link rel="self" type="application/atom+xml" href="${escapeXml(feed.self)}"/>`,
    `<link rel="alternate" type="text/html" href="${escapeXml(feed.alternate)}"/>`,
    `<updated>${time(feed.updated)}</updated>`,
    '<generator>pulsegate</generator>',
    ...feed.entries.map(entry),
    '</feed>\n',
  ].join('');
}
