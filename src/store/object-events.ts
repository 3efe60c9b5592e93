/**
 * The events of one object, for the pages behind the links the API and the feeds emit: an issue's,
 * a merge request's or a milestone's own events (the object itself and the notes on it), and the
 * pushes that carried a commit, moved a ref, or went from one commit to another. Ids only, newest
 * first: the activity service looks each one up under the listings' visibility rules.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export type ObjectTarget = {
  type: 'Issue' | 'MergeRequest' | 'Milestone' | 'Snippet';
  id: number;
};

/** Which pushes: those carrying a commit, between two commits, or to a ref. */
export type PushMatch =
  | { kind: 'commit'; sha: string }
  | { kind: 'range'; from: string; to: string }
  | { kind: 'ref'; refType: 'branch' | 'tag'; ref: string | null };

export class ObjectEventStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The object's events and those of the notes on it. */
  async ofTarget(projectId: number, target: ObjectTarget, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('events')
      .select('id')
      .where('project_id', '=', projectId)
      .where((eb) =>
        eb.or([
          eb.and([eb('target_type', '=', target.type), eb('target_id', '=', target.id)]),
          eb.and([
            eb('target_type', '=', 'Note'),
            eb(
              'target_id',
              'in',
              eb
                .selectFrom('notes')
                .select('notes.id')
                .where('notes.project_id', '=', projectId)
                .where('notes.noteable_type', '=', target.type)
                .where('notes.noteable_id', '=', target.id),
            ),
          ]),
        ]),
      )
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Push events of a project that match. A commit is matched by the push's head or by the commits
   * the payload kept (a stored JSON array, so a text match on the full id, which is hexadecimal).
   */
  async pushes(projectId: number, match: PushMatch, limit: number): Promise<number[]> {
    let query = this.db
      .selectFrom('push_event_payloads as p')
      .innerJoin('events as e', 'e.id', 'p.event_id')
      .select('e.id')
      .where('e.project_id', '=', projectId);
    if (match.kind === 'commit') {
      query = query.where((eb) =>
        eb.or([eb('p.commit_to', '=', match.sha), eb('p.commits', 'like', `%"${match.sha}"%`)]),
      );
    } else if (match.kind === 'range') {
      query = query.where('p.commit_from', '=', match.from).where('p.commit_to', '=', match.to);
    } else {
      query = query.where('p.ref_type', '=', match.refType);
      if (match.ref !== null) query = query.where('p.ref', '=', match.ref);
    }
    const rows = await query.orderBy('e.id', 'desc').limit(limit).execute();
    return rows.map((r) => r.id);
  }
}
