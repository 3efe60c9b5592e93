/**
 * The files behind `/graphiql`: GraphiQL 3.8.3's UMD bundle and stylesheet, React 18's UMD builds,
 * our init script and the page's own stylesheet. All are read once per process from node_modules and served by this process
 * (air-gapped installations cannot reach a CDN). Each URL carries a digest of the content, so the
 * browser may cache it for a year: an upgrade changes the URL, never the bytes behind one.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

export const ASSET_PREFIX = '/graphiql/assets/';

export interface Asset {
  /** The URL path under which the asset is served, e.g. `/graphiql/assets/react.3f2a….js`. */
  url: string;
  contentType: string;
  body: Buffer;
  /** Compressed on first demand, then kept: 3.5 MB of GraphiQL shrinks to under 1 MB. */
  gzipped?: Promise<Buffer>;
}

export interface ExplorerAssets {
  react: Asset;
  reactDom: Asset;
  graphiql: Asset;
  graphiqlCss: Asset;
  init: Asset;
  /** The page around GraphiQL: the site's header, the stacked panes on a phone. */
  pageCss: Asset;
  /** Assets by their URL path. */
  byUrl: Map<string, Asset>;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

const require = createRequire(import.meta.url);

/**
 * A file inside an installed package. React's `exports` map hides `umd/`, so the path is resolved
 * from the package's own package.json rather than as a subpath specifier.
 */
function packageFile(pkg: string, file: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), file);
}

/**
 * The bundles end with a `sourceMappingURL` comment; the maps (6 MB) are not served, so the
 * comment would only make browser dev tools report a failed fetch.
 */
function withoutSourceMap(text: string): string {
  return text.replace(
    /\n?(?:\/\/# sourceMappingURL=\S+|\/\*# sourceMappingURL=\S+\s*\*\/)\s*$/,
    '\n',
  );
}

function asset(name: string, ext: 'js' | 'css', text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return {
    url: `${ASSET_PREFIX}${name}.${hash}.${ext}`,
    contentType: ext === 'js' ? JS : CSS,
    body,
  };
}

function vendor(pkg: string, file: string, name: string, ext: 'js' | 'css'): Asset {
  return asset(name, ext, withoutSourceMap(readFileSync(packageFile(pkg, file), 'utf8')));
}

function load(): ExplorerAssets {
  const assets = {
    react: vendor('react', 'umd/react.production.min.js', 'react.production.min', 'js'),
    reactDom: vendor(
      'react-dom',
      'umd/react-dom.production.min.js',
      'react-dom.production.min',
      'js',
    ),
    graphiql: vendor('graphiql', 'graphiql.min.js', 'graphiql.min', 'js'),
    graphiqlCss: vendor('graphiql', 'graphiql.min.css', 'graphiql.min', 'css'),
    init: asset('init', 'js', readFileSync(new URL('./init.js', import.meta.url), 'utf8')),
    pageCss: asset('page', 'css', readFileSync(new URL('./page.css', import.meta.url), 'utf8')),
  };
  return { ...assets, byUrl: new Map(Object.values(assets).map((a) => [a.url, a])) };
}

let loaded: ExplorerAssets | undefined;

/** Read on first use and shared by every server in the process (tests boot many). */
export function explorerAssets(): ExplorerAssets {
  loaded ??= load();
  return loaded;
}

export function gzipped(asset: Asset): Promise<Buffer> {
  asset.gzipped ??= gzipAsync(asset.body);
  return asset.gzipped;
}

/** Whether an Accept-Encoding header admits gzip (`gzip`, `x-gzip` or `*`, with q > 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let verdict = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (coding === 'gzip' || coding === 'x-gzip') return weight > 0;
    if (coding === '*') verdict = weight > 0;
  }
  return verdict;
}
