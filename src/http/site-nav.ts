/**
 * The site's navigation, one list for every page that draws it: the web pages' layout and
 * GraphiQL's page (which cannot import the web face), so the two never disagree.
 */
export interface SiteLink {
  href: string;
  label: string;
}

/** The links a signed-in user sees, their own profile first after the activity. */
export function siteLinks(username: string): SiteLink[] {
  return [
    { href: '/dashboard/activity', label: 'Activity' },
    { href: `/${encodeURIComponent(username)}`, label: 'Your profile' },
    { href: '/graphiql', label: 'GraphiQL' },
    { href: '/profile/applications', label: 'Applications' },
    { href: '/profile/personal_access_tokens', label: 'Access tokens' },
    { href: '/profile/feed_token', label: 'Feed token' },
    { href: '/profile/preferences', label: 'Preferences' },
    { href: '/profile/two_factor_auth', label: 'Two-factor authentication' },
  ];
}

/** What a signed-out visitor sees. */
export const SIGNED_OUT_LINKS: readonly SiteLink[] = [
  { href: '/graphiql', label: 'GraphiQL' },
  { href: '/users/sign_in', label: 'Sign in' },
];
