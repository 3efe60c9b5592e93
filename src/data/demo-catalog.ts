/** Realistic words for the demo data set: who works where, and what they write. */

/** The password of every demo user (documented in the README and printed by `npm start`). */
export const DEMO_PASSWORD = 'pulsegate-demo';
/** The demo user whose token `npm start` prints. */
export const DEMO_USERNAME = 'alice';
/** Demo activity ends before this midnight (UTC; fixed, so the data set is the same everywhere). */
export const DEMO_END = Date.UTC(2026, 0, 14);
export const DEMO_DAYS = 90;
/** Commit URLs point at the default local address. */
export const DEMO_BASE_URL = 'http://127.0.0.1:3000';

export interface DemoUser {
  username: string;
  name: string;
  admin?: boolean;
  privateProfile?: boolean;
  blocked?: boolean;
}

export const DEMO_USERS: DemoUser[] = [
  { username: 'root', name: 'Administrator', admin: true },
  { username: 'alice', name: 'Alice Moreau' },
  { username: 'bob', name: 'Bob Tanaka' },
  { username: 'carol', name: 'Carol Okafor', privateProfile: true },
  { username: 'dave', name: 'Dave Lindqvist' },
  { username: 'erin', name: 'Erin Castillo', blocked: true },
  { username: 'frank', name: 'Frank Osei' },
];

export interface DemoProject {
  namespace: string;
  path: string;
  name: string;
  description: string;
  visibility: 'public' | 'internal' | 'private';
  creator: string;
  /** username → access level; the creator is always an owner. */
  members: Record<string, number>;
  /** Relative share of the activity. */
  weight: number;
}

export const DEMO_PROJECTS: DemoProject[] = [
  {
    namespace: 'acme/platform',
    path: 'api',
    name: 'Platform API',
    description: 'The public HTTP API of the Acme platform.',
    visibility: 'public',
    creator: 'alice',
    members: { bob: 40, carol: 30, dave: 20, erin: 10, frank: 30 },
    weight: 6,
  },
  {
    namespace: 'acme/platform',
    path: 'web',
    name: 'Platform Web',
    description: 'Single-page web client for the platform.',
    visibility: 'internal',
    creator: 'bob',
    members: { alice: 30, dave: 30, erin: 20 },
    weight: 4,
  },
  {
    namespace: 'acme/infra',
    path: 'deploy',
    name: 'Deploy',
    description: 'Deployment pipelines and infrastructure as code.',
    visibility: 'private',
    creator: 'carol',
    members: { alice: 40, bob: 10, frank: 30 },
    weight: 3,
  },
  {
    namespace: 'acme',
    path: 'handbook',
    name: 'Handbook',
    description: 'How we work: processes, on-call, onboarding.',
    visibility: 'public',
    creator: 'dave',
    members: { alice: 30, bob: 30, carol: 30, erin: 30 },
    weight: 2,
  },
  {
    namespace: 'alice',
    path: 'dotfiles',
    name: 'dotfiles',
    description: "Alice's shell and editor configuration.",
    visibility: 'public',
    creator: 'alice',
    members: {},
    weight: 1,
  },
  {
    namespace: 'bob',
    path: 'notes-app',
    name: 'Notes App',
    description: 'A small note-taking experiment.',
    visibility: 'private',
    creator: 'bob',
    members: { alice: 20 },
    weight: 1,
  },
  {
    namespace: 'carol',
    path: 'experiments',
    name: 'Experiments',
    description: 'Prototypes and spikes.',
    visibility: 'internal',
    creator: 'carol',
    members: { dave: 30 },
    weight: 1,
  },
];

export const ISSUE_TITLES = [
  'Events endpoint returns 500 for unknown target_type',
  'Pagination Link header drops the sort parameter',
  'Add rate limiting to the token endpoint',
  'Document the import format',
  'Flaky test: user events pagination',
  'Support PostgreSQL 17',
  'Dark mode for the dashboard',
  'Slow project listing with many members',
  'Expose last_used_at on personal access tokens',
  'Deploy job fails when the cache is cold',
  'Upgrade to Node 22',
  'Search does not match accented names',
  'Webhooks are retried forever after a 410',
  'Audit log misses token revocations',
  'Avatar upload rejects PNG files over 1 MB',
  'Onboarding checklist is out of date',
  'Nightly backup exceeds the time window',
  'Improve error message for expired tokens',
  'CSV export breaks on commas in titles',
  'Keyboard shortcuts conflict with screen readers',
  'Timezone shown as UTC in activity feed',
  'Memory grows during large imports',
  'Add health check endpoint for the load balancer',
  'Broken link in the contributing guide',
];

export const CONFIDENTIAL_ISSUE_TITLE = 'Session tokens written to debug logs';

export const MR_TITLES = [
  'Validate target_type before querying',
  'Keep every query parameter in Link headers',
  'Add keyset pagination for deep pages',
  'Draft: Switch CI to the new runners',
  'Bump fastify to 5.x',
  'Extract visibility rules into a policy module',
  'Fix N+1 queries in the activity feed',
  'Add a dark theme',
  'Cache project lookups per request',
  'Retry webhooks with exponential backoff',
  'Redact secrets from request logs',
  'Add Terraform module for the read replica',
  'Translate onboarding guide to German',
  'Make the deploy cache key include the lockfile hash',
  'Remove the legacy v3 endpoints',
];

export const COMMIT_MESSAGES = [
  'Fix typo in README',
  'Add tests for the events filter',
  'Refactor pagination helpers\n\nMove header building into one module so REST and GraphQL agree.',
  'Handle empty request bodies on GET',
  'Bump dependencies',
  'Make the import streaming\n\nThe old importer read the whole file into memory.',
  'Speed up the project events query by walking the (project_id, id) index instead of sorting',
  'Update CI image to node:20',
  'Add missing index on events.author_id',
  'Revert "Cache project lookups per request"',
  'Document configuration variables',
  'Fix flaky test by freezing the clock',
  'Use constant-time comparison for tokens',
  'Add health check endpoint',
  'Rename variables for clarity',
  '   Trim whitespace in commit titles   \n\nLeading and trailing blanks are stripped.',
  "Merge branch 'feature/keyset-pagination' into 'main'",
  'Improve error messages for invalid dates in before/after filters of the events API endpoints',
  'Add Terraform state locking',
  'Write onboarding checklist',
];

export const NOTE_BODIES = [
  'Thanks, this looks good to me.',
  'Could you add a test for the empty case?',
  'I can reproduce this on main.',
  'This broke after the last deploy, see the logs.',
  'LGTM :+1:',
  'Nit: the variable name is misleading.',
  'Should we backport this to the stable branch?',
  'Closing as duplicate.',
  'I pushed a fix, please have another look.',
  'What happens when the list is empty?',
  'Let us discuss this in the weekly sync.',
  'Approved from the security side.',
];

export const CONFIDENTIAL_NOTES = [
  'Confirmed: the Authorization header is logged at debug level.',
  'Rotating the affected tokens now; a patch is in review.',
  'Patched in the next release. Do not discuss publicly until then.',
];

export const MILESTONE_TITLES = ['v1.4', 'v1.5', 'Q1 2026', 'Beta launch'];
export const SNIPPET_TITLES = [
  'curl the events API with a token',
  'psql one-liner for event counts',
  'nginx reverse proxy config',
  'Rotate all tokens of a user',
];
export const BRANCHES = [
  'feature/keyset-pagination',
  'fix/link-header',
  'chore/bump-deps',
  'feature/dark-mode',
  'fix/flaky-tests',
  'docs/import-format',
];

/**
 * Who starred what (full paths), so the dashboard's "Starred projects" tab has something to show:
 * each user stars only projects they can read.
 */
export const DEMO_STARS: Record<string, string[]> = {
  root: ['acme/platform/api'],
  alice: ['acme/platform/api', 'acme/platform/web', 'acme/infra/deploy', 'acme/handbook'],
  bob: ['acme/platform/api', 'alice/dotfiles', 'acme/handbook'],
  carol: ['acme/handbook'],
  dave: ['acme/platform/api', 'carol/experiments'],
  frank: ['acme/platform/api', 'acme/infra/deploy'],
};

/** Who follows whom, so the "Followed users" tab has something to show. */
export const DEMO_FOLLOWS: Record<string, string[]> = {
  root: ['alice'],
  alice: ['bob', 'carol', 'dave', 'frank'],
  bob: ['alice', 'dave'],
  carol: ['alice'],
  dave: ['alice'],
  frank: ['alice', 'bob'],
};
