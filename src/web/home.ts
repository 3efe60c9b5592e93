/**
 * `/`: the front door. Signed out, it says what pulsegate is and where to go; signed in, it shows
 * the user's latest activity through the same activity service the APIs use.
 */
import { viewerOf } from '../domain/visibility.js';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { eventItem } from './event-item.js';
import { pageContext } from './guard.js';
import { html, layout, sendHtml } from './html.js';
import { avatarImageSources } from './identicon.js';
import { signedIn } from './session.js';

const FEED_SIZE = 20;

const ABOUT = html`<section class="card">
  <h1>pulsegate</h1>
  <p>
    A self-hosted activity API for software projects: who did what to which issue, merge request,
    note, milestone, project, snippet or user. It speaks GitLab's REST v4 events API, a GraphQL API,
    and OAuth 2.0.
  </p>
  <ul>
    <li><a href="/graphiql">GraphiQL</a>: explore the GraphQL API at <code>/api/graphql</code></li>
    <li>
      REST: <code>/api/v4/events</code>, <code>/api/v4/users/:id/events</code>,
      <code>/api/v4/projects/:id/events</code>
    </li>
    <li>
      OAuth 2.0: <code>/oauth/authorize</code>, <code>/oauth/token</code>, metadata at
      <a href="/.well-known/oauth-authorization-server">/.well-known/oauth-authorization-server</a>
    </li>
  </ul>
</section>`;

export function homeRoutes(app: FastifyInstance, services: Services): void {
  app.get('/', async (request, reply) => {
    const signed = await signedIn(services, request);
    if (!signed) {
      return sendHtml(
        reply,
        200,
        layout(
          'Home',
          html`${ABOUT}
            <p class="center"><a class="button" href="/users/sign_in">Sign in</a></p>`,
        ),
      );
    }
    const ctx = pageContext(services, signed.session, signed.user);
    const viewer = viewerOf(signed.user);
    const { activity } = services;
    const answer = await activity.read({
      source: { kind: 'viewer' },
      filter: { sort: 'desc' },
      page: { page: 1, perPage: FEED_SIZE },
      viewer,
    });
    const events = answer.notModified ? [] : answer.page.events;
    const body = html`<section class="card">
        <h1>Your activity</h1>
        ${
          events.length === 0
            ? html`<p class="muted">Nothing yet.</p>`
            : html`<ol class="events">
                ${events.map((event) => eventItem(event, services.clock.now(), services.config))}
              </ol>`
        }
        <p><a href="/dashboard/activity">Everything in your projects</a></p>
        <p class="muted">
          The same list as <code>GET /api/v4/events</code>; create a token under
          <a href="/profile/personal_access_tokens">Access tokens</a> to call the API.
        </p>
      </section>
      ${ABOUT}`;
    return sendHtml(reply, 200, layout('Home', body, ctx.nav), avatarImageSources(services.config));
  });
}
