/**
 * `/profile/preferences`: the signed-in user's contribution calendar settings, the two GitLab
 * keeps on its profile settings: the time zone the calendar's days are counted in, and "Include
 * private contributions on my profile". A CSRF-protected form (the pages' guard checks the token
 * of every POST); the same settings as `PUT /api/v4/user/preferences`.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidRecordError } from '../domain/errors.js';
import type { CalendarSettingsView } from '../services/accounts/calendar-settings.js';
import type { Services } from '../services/container.js';
import { type PageContext, forUser } from './guard.js';
import { csrfField, html, layout, messages, sendHtml } from './html.js';
import { formValue, formValues } from './session.js';

const PAGE = '/profile/preferences';

/** Every zone the runtime knows, UTC first (the default). */
function zones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

function page(ctx: PageContext, settings: CalendarSettingsView, flash: ReturnType<typeof html>) {
  return layout(
    'Preferences',
    html`${flash}
      <section class="card">
        <h1>Preferences</h1>
        <form method="post" action="${PAGE}">
          ${csrfField(ctx.csrf)}
          <p>
            <label for="timezone">Time zone</label>
            <select id="timezone" name="timezone">
              ${zones().map(
                (zone) =>
                  html`<option value="${zone}" ${zone === settings.timeZone ? html`selected` : ''}>
                    ${zone}
                  </option>`,
              )}
            </select>
          </p>
          <p class="muted">Your contribution calendar counts the days of this time zone.</p>
          <p>
            <input type="hidden" name="include_private_contributions" value="0" />
            <label>
              <input
                type="checkbox"
                name="include_private_contributions"
                value="1"
                ${settings.includePrivateContributions ? html`checked` : ''}
              />
              Include private contributions on my profile
            </label>
          </p>
          <p class="muted">
            Your calendar then counts your events in private projects for everyone who looks,
            without showing what they were.
          </p>
          <div class="actions"><button type="submit">Save preferences</button></div>
        </form>
      </section>`,
    ctx.nav,
  );
}

export function preferenceRoutes(app: FastifyInstance, services: Services): void {
  app.get(
    PAGE,
    forUser(services, async (ctx, request, reply) => {
      const settings = await services.calendarSettings.get(ctx.user.id);
      const done = (request.query as { done?: string }).done === 'saved';
      return sendHtml(
        reply,
        200,
        page(ctx, settings, done ? messages(['Preferences saved.'], 'notice') : html``),
      );
    }),
  );

  app.post(
    PAGE,
    forUser(services, async (ctx, request, reply) => {
      // The checkbox follows its hidden 0: checked sends both, and the last one wins.
      const include = formValues(request.body, 'include_private_contributions').at(-1) === '1';
      try {
        await services.calendarSettings.update(ctx.user.id, {
          timeZone: formValue(request.body, 'timezone') ?? '',
          includePrivateContributions: include,
        });
      } catch (error) {
        if (!(error instanceof InvalidRecordError)) throw error;
        const settings = await services.calendarSettings.get(ctx.user.id);
        return sendHtml(reply, 400, page(ctx, settings, messages([error.message])));
      }
      return reply.redirect(`${PAGE}?done=saved`, 303);
    }),
  );
}
