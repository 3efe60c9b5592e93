/**
 * Parses served Atom with a real feed parser: Debian's python3-feedparser, run on the bytes the
 * server sent. `bozo` is feedparser's flag for a document that is not well-formed.
 */
import { execFileSync } from 'node:child_process';

export interface ParsedFeed {
  bozo: number;
  bozo_exception: string | null;
  version: string;
  feed: { title: string; id: string; updated: string; links: { rel: string; href: string }[] };
  entries: {
    id: string;
    title: string;
    link: string;
    updated: string;
    author: string | null;
    author_uri: string | null;
    summary: string | null;
  }[];
}

const SCRIPT = `
import json, sys, feedparser
def summary(d):
  return {
      "bozo": int(d.bozo),
  "bozo_exception": str(d.get("bozo_exception")) if d.bozo else None,
  "version": d.version,
  "feed": {
    "title": d.feed.get("title"), "id": d.feed.get("id"), "updated": d.feed.get("updated"),
    "links": [{"rel": l.get("rel"), "href": l.get("href")} for l in d.feed.get("links", [])],
  },
  "entries": [{
    "id": e.get("id"), "title": e.get("title"), "link": e.get("link"),
    "updated": e.get("updated"), "author": e.get("author"),
    "author_uri": e.get("author_detail", {}).get("href"), "summary": e.get("summary"),
  } for e in d.entries],
  }
docs = json.loads(sys.stdin.buffer.read())
print(json.dumps([summary(feedparser.parse(doc.encode("utf-8"))) for doc in docs]))
`;

/** Several documents in one run of the parser (one Python start for a whole property run). */
export function parseFeeds(xmls: readonly string[]): ParsedFeed[] {
  const out = execFileSync('/usr/bin/python3', ['-c', SCRIPT], {
    input: JSON.stringify(xmls),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as ParsedFeed[];
}

export function parseFeed(xml: string): ParsedFeed {
  return parseFeeds([xml])[0]!;
}
