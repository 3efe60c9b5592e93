/**
 * OIDC Core §3.1.2.1 `prompt` and `max_age` on the authorization endpoint: their syntax, and what
 * a request asks of the signed-in state — go ahead, sign in (again), or fail without any page
 * (`login_required`, `consent_required`) when `prompt=none` forbids showing one.
 */

export const PROMPT_VALUES = ['none', 'login', 'consent', 'select_account'] as const;
export type PromptValue = (typeof PROMPT_VALUES)[number];

export interface OidcParams {
  prompt: PromptValue[];
  /** Seconds; null when absent. */
  maxAge: number | null;
  nonce: string | null;
}

/** Long enough for any client's nonce; bounded because it is stored and echoed. */
const NONCE_MAX = 512;

export function parseOidcParams(params: {
  prompt?: string | undefined;
  max_age?: string | undefined;
  nonce?: string | undefined;
}): { ok: OidcParams } | { problem: string } {
  const prompt: PromptValue[] = [];
  for (const value of (params.prompt ?? '').split(' ').filter(Boolean)) {
    if (!(PROMPT_VALUES as readonly string[]).includes(value)) {
      return { problem: `The prompt value ${value} is not supported.` };
    }
    if (!prompt.includes(value as PromptValue)) prompt.push(value as PromptValue);
  }
  if (prompt.includes('none') && prompt.length > 1) {
    return { problem: 'The prompt value none cannot be combined with other values.' };
  }
  let maxAge: number | null = null;
  if (params.max_age !== undefined) {
    if (!/^\d{1,9}$/.test(params.max_age)) {
      return { problem: 'The max_age must be a whole number of seconds.' };
    }
    maxAge = Number(params.max_age);
  }
  const nonce = params.nonce ?? null;
  if (nonce !== null && nonce.length > NONCE_MAX) {
    return { problem: `The nonce must be at most ${NONCE_MAX} characters.` };
  }
  return { ok: { prompt, maxAge, nonce } };
}

export type PromptOutcome =
  /** Show the consent page (the default: pulsegate asks every time unless told not to). */
  | { kind: 'consent' }
  /** prompt=none with consent given before: issue the code without a page. */
  | { kind: 'approve' }
  /** Send the user to the sign-in page, signing out first when someone is signed in. */
  | { kind: 'sign_in' }
  | { kind: 'error'; error: 'login_required' | 'consent_required' };

export function decidePrompt(
  request: Pick<OidcParams, 'prompt' | 'maxAge'>,
  state: {
    /** When the signed-in user authenticated; null when nobody is signed in. */
    authTime: number | null;
    now: number;
    /** Whether the user already granted this client these scopes (asked for prompt=none). */
    consented: boolean;
  },
): PromptOutcome {
  const silent = request.prompt.includes('none');
  const stale =
    state.authTime === null ||
    request.prompt.includes('login') ||
    (request.maxAge !== null && state.now - state.authTime > request.maxAge * 1000);
  if (stale) return silent ? { kind: 'error', error: 'login_required' } : { kind: 'sign_in' };
  if (!silent) return { kind: 'consent' };
  return state.consented ? { kind: 'approve' } : { kind: 'error', error: 'consent_required' };
}

/**
 * The authorization request to come back to after a forced sign-in: without `login` in `prompt`
 * and without `max_age`, which the fresh sign-in satisfies — otherwise the user would loop.
 */
export function afterReauthentication(query: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(query);
  next.delete('max_age');
  const prompt = (next.get('prompt') ?? '')
    .split(' ')
    .filter((v) => v !== '' && v !== 'login')
    .join(' ');
  if (prompt === '') next.delete('prompt');
  else next.set('prompt', prompt);
  return next;
}
