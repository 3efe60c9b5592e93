/**
 * Migrations are code, in order. Each module exports `up(db, ctx)`; add new ones at the end of the
 * list and never edit an applied one.
 */
import type { Kysely } from 'kysely';
import * as core from './001_core.js';
import * as oauth from './002_oauth.js';
import * as throttle from './003_throttle.js';
import * as secrets from './004_server_secrets.js';
import * as throttlePending from './005_throttle_pending.js';
import * as apiRateLimit from './006_api_rate_limit.js';
import * as oidc from './007_oidc.js';
import * as writes from './008_writes.js';
import * as listingVersion from './009_listing_version.js';
import * as liveEvents from './010_live_events.js';
import * as webhooks from './011_webhooks.js';
import * as listingEpochs from './013_listing_epochs.js';
import * as coveringIndexes from './014_covering_indexes.js';
import * as rowVersions from './015_row_versions.js';
import * as appendsKeepVersion from './016_appends_keep_version.js';
import * as eventTallies from './017_event_tallies.js';
import * as confidentialTallies from './018_confidential_tallies.js';
import * as authorProjectWalk from './019_author_project_walk.js';
import * as neverReuseIds from './020_never_reuse_ids.js';
import * as stateUniqueness from './021_state_uniqueness.js';
import * as sealedHookTokens from './022_sealed_hook_tokens.js';
import * as hookRetryGate from './023_hook_retry_gate.js';
import * as starsFollows from './024_stars_follows.js';
import * as userCalendarSettings from './025_user_calendar_settings.js';
import * as bigintIds from './026_bigint_ids.js';
import * as eventPartitions from './027_event_partitions.js';
import * as socialRowVersions from './028_social_row_versions.js';
import type { MigrationContext } from './helpers.js';

export interface CodeMigration {
  name: string;
  up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void>;
}

export const MIGRATIONS: CodeMigration[] = [
  { name: '001_core', up: core.up },
  { name: '002_oauth', up: oauth.up },
  { name: '003_throttle', up: throttle.up },
  { name: '004_server_secrets', up: secrets.up },
  { name: '005_throttle_pending', up: throttlePending.up },
  { name: '006_api_rate_limit', up: apiRateLimit.up },
  { name: '007_oidc', up: oidc.up },
  { name: '008_writes', up: writes.up },
  { name: '009_listing_version', up: listingVersion.up },
  { name: '010_live_events', up: liveEvents.up },
  { name: '011_webhooks', up: webhooks.up },
  { name: '013_listing_epochs', up: listingEpochs.up },
  { name: '014_covering_indexes', up: coveringIndexes.up },
  { name: '015_row_versions', up: rowVersions.up },
  { name: '016_appends_keep_version', up: appendsKeepVersion.up },
  { name: '017_event_tallies', up: eventTallies.up },
  { name: '018_confidential_tallies', up: confidentialTallies.up },
  { name: '019_author_project_walk', up: authorProjectWalk.up },
  { name: '020_never_reuse_ids', up: neverReuseIds.up },
  { name: '021_state_uniqueness', up: stateUniqueness.up },
  { name: '022_sealed_hook_tokens', up: sealedHookTokens.up },
  { name: '023_hook_retry_gate', up: hookRetryGate.up },
  { name: '024_stars_follows', up: starsFollows.up },
  { name: '025_user_calendar_settings', up: userCalendarSettings.up },
  { name: '026_bigint_ids', up: bigintIds.up },
  { name: '027_event_partitions', up: eventPartitions.up },
  { name: '028_social_row_versions', up: socialRowVersions.up },
];
