/**
 * A user's contribution calendar settings, as GitLab's user preferences hold them: the time zone
 * its days are counted in (an IANA name, UTC by default) and "Include private contributions on my
 * profile". A name the runtime's time zone database does not know is refused as GitLab refuses
 * an invalid record; a known one is stored as its canonical spelling.
 */
import { canonicalTimeZone } from '../../domain/calendar.js';
import { InvalidRecordError, NotFoundError } from '../../domain/errors.js';
import type { Store } from '../../store/store.js';

export interface CalendarSettingsView {
  userId: number;
  timeZone: string;
  includePrivateContributions: boolean;
}

export interface CalendarSettingsChange {
  timeZone?: string | undefined;
  includePrivateContributions?: boolean | undefined;
}

export class CalendarSettings {
  constructor(private readonly store: Store) {}

  async get(userId: number): Promise<CalendarSettingsView> {
    const row = await this.store.users.byId(userId);
    if (!row) throw new NotFoundError('User');
    return {
      userId: row.id,
      timeZone: row.timezone,
      includePrivateContributions: row.include_private_contributions === 1,
    };
  }

  async update(userId: number, change: CalendarSettingsChange): Promise<CalendarSettingsView> {
    const changes: { timezone?: string; include_private_contributions?: number } = {};
    if (change.timeZone !== undefined) {
      const zone = canonicalTimeZone(change.timeZone);
      if (zone === null) throw new InvalidRecordError({ timezone: ['is not a valid time zone'] });
      changes.timezone = zone;
    }
    if (change.includePrivateContributions !== undefined) {
      changes.include_private_contributions = change.includePrivateContributions ? 1 : 0;
    }
    if (Object.keys(changes).length > 0) await this.store.users.update(userId, changes);
    return this.get(userId);
  }
}
