/**
 * The activity pages' script: client/live.js bundled with graphql-ws by esbuild into one file for
 * the browser. `scripts/build.mjs` writes the bundle beside the built module
 * (dist/web/client/live.bundle.js); running from sources (tsx: tests, a changed checkout) it is
 * bundled here on first use, once per process. Served under a digest of its bytes, so a browser
 * may keep it for a year: a new build changes the URL, never the bytes behind one.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = new URL('./client/live.js', import.meta.url);
const PREBUILT = new URL('./client/live.bundle.js', import.meta.url);
export const LIVE_SCRIPT_PREFIX = '/assets/live/';

/** The browser bundle of client/live.js (an IIFE: no module loading, one request). */
export async function bundleLiveClient(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(ENTRY)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export interface LiveScript {
  /** `/assets/live/live.<digest>.js` */
  url: string;
  file: string;
  body: Buffer;
}

let loading: Promise<LiveScript> | undefined;

async function load(): Promise<LiveScript> {
  const text = existsSync(PREBUILT) ? readFileSync(PREBUILT, 'utf8') : await bundleLiveClient();
  const body = Buffer.from(text, 'utf8');
  const file = `live.${createHash('sha256').update(body).digest('hex').slice(0, 16)}.js`;
  return { url: `${LIVE_SCRIPT_PREFIX}${file}`, file, body };
}

/** The bundle, built or read on first use and shared by every server in the process. */
export function liveScript(): Promise<LiveScript> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
