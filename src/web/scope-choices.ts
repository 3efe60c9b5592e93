/** What each OAuth scope lets an application or token do, and the form field that picks scopes. */
import { type Html, html } from './html.js';

export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  api: 'Full read and write access to the API, including all projects you can see.',
  read_api: 'Read access to the API, including all projects you can see.',
  read_user: 'Read-only access to your profile and your activity.',
  write_repository:
    "Record pushes to your projects' repositories (the token of `pulsegate hook install`); nothing else of the API.",
  openid: 'Sign you in to the application with your pulsegate account (your user ID).',
  profile: 'See your name, username, profile page, avatar and the groups you belong to.',
  email: 'See your e-mail address.',
};

/** One checkbox per scope offered (`scopes`), each described, the `chosen` ones checked. */
export function scopeChoices(scopes: readonly string[], chosen: readonly string[]): Html {
  return html`<fieldset>
    <legend>Scopes</legend>
    ${scopes.map(
      (s) =>
        html`<label class="check"
          ><input
            type="checkbox"
            name="scopes"
            value="${s}"
            ${chosen.includes(s) ? html`checked` : ''}
          />
          <code>${s}</code>
          <span class="muted scope-description">${SCOPE_DESCRIPTIONS[s] ?? ''}</span></label
        >`,
    )}
  </fieldset>`;
}
