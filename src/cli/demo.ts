/**
 * `serve --demo` (what `npm start` runs): load the demo data into an empty database, mint a fresh
 * token for the demo user and print it with ready-to-paste curl lines. The services decide; this
 * file only prints. The token is minted only once the server listens: minting revokes the previous
 * demo token, which a second `npm start` that fails (its port taken by the first) must not do.
 */
import type { Config } from '../config.js';
import type { Clock } from '../services/clock.js';
import { DEMO_PASSWORD, DEMO_USERNAME } from '../data/demo-catalog.js';
import { SeedService } from '../data/seed.js';
import { ProvisioningService } from '../services/accounts/provisioning.js';
import type { Store } from '../store/store.js';
import { ProgressReporter, progressMode, summaryLine } from './progress.js';

/** Both steps at once: the demo data, then the banner with a fresh token. */
export async function prepareDemo(
  store: Store,
  clock: Clock,
  config: Config,
  say: (text: string) => void = (text) => process.stdout.write(text),
): Promise<string> {
  await loadDemoData(store, clock, config, say);
  return demoBanner(store, clock, config);
}

/** Before the server listens: the demo data, loaded into an empty database. */
export async function loadDemoData(
  store: Store,
  clock: Clock,
  config: Config,
  say: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  const seed = new SeedService(store, clock);
  if (await seed.isEmpty()) {
    say('The database is empty: loading the demo data set…\n');
    const progress = new ProgressReporter('demo data', progressMode(false));
    const summary = await seed.seedDemoIfEmpty({ onProgress: progress.update }, config.externalUrl);
    progress.finish();
    if (summary) say(`${summaryLine('loaded demo data:', summary)}\n`);
  }
}

/**
 * Once the server listens: a fresh token for the demo user (the previous one is revoked) and the
 * banner that shows it.
 */
export async function demoBanner(store: Store, clock: Clock, config: Config): Promise<string> {
  const lines: string[] = [];
  const issued = await new ProvisioningService(store, clock).demoToken(DEMO_USERNAME);
  if (!issued) {
    lines.push('No active demo user "alice" in this database: no demo token was created.');
    return lines.join('\n') + '\n';
  }
  const base = `${config.externalUrl}/api/v4`;
  const header = `--header "PRIVATE-TOKEN: ${issued.token}"`;
  lines.push(
    '',
    `Demo user: ${issued.user.username} (password for every demo user: ${DEMO_PASSWORD})`,
    `Personal access token (scope api, expires ${issued.row.expires_at}), shown only once:`,
    '',
    `  ${issued.token}`,
    '',
    'Try:',
    `  curl ${header} "${base}/events"`,
    `  curl ${header} "${base}/projects/acme%2Fplatform%2Fapi/events?action=pushed&per_page=5"`,
    `  curl ${header} "${base}/users/bob/events?target_type=issue"`,
    '',
    'Write (the token has scope api), then see the event it made:',
    `  curl ${header} --data "title=My first issue" "${base}/projects/acme%2Fplatform%2Fapi/issues"`,
    `  curl ${header} "${base}/projects/acme%2Fplatform%2Fapi/events?per_page=1"`,
    '',
  );
  return lines.join('\n');
}
