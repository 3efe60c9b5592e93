/** Notes (comments) on issues, merge requests and snippets. */
import type { Insertable, Kysely } from 'kysely';
import type { Database, NoteRow, NotesTable } from './schema.js';

export interface NoteListQuery {
  noteableType: string;
  noteableId: number;
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export class NoteStore {
  constructor(private readonly db: Kysely<Database>) {}

  create(values: Insertable<NotesTable>): Promise<NoteRow> {
    return this.db.insertInto('notes').values(values).returningAll().executeTakeFirstOrThrow();
  }

  byId(id: number): Promise<NoteRow | undefined> {
    return this.db.selectFrom('notes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(q: NoteListQuery): Promise<NoteRow[]> {
    return this.db
      .selectFrom('notes')
      .selectAll()
      .where('noteable_type', '=', q.noteableType)
      .where('noteable_id', '=', q.noteableId)
      .orderBy('id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  /** Notes per noteable, system notes left out (GitLab's `user_notes_count`). */
  async userNoteCounts(noteableType: string, ids: readonly number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('notes')
      .select(['noteable_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', 'in', [...ids])
      .where('system', '=', 0)
      .groupBy('noteable_id')
      .execute();
    return new Map(rows.map((r) => [r.noteable_id, Number(r.n)]));
  }

  async count(noteableType: string, noteableId: number): Promise<number> {
    const row = await this.db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', '=', noteableId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
