/**
 * A user's or a set's tallied events by project, split by whether the viewer may read the
 * project: what the choice between one joined walk and merged ones is made by (walks.ts
 * `authorParts`, social.ts `joinedIsCheaper`).
 */
import { canReadProject } from '../../domain/visibility.js';
import { type Visibility, actionCode } from '../../domain/vocabulary.js';
import { memberProjects } from './memberships.js';
import { type EventContext, type EventQuery, dayOf } from './query.js';

/** A project the viewer may read, with its tallied events and the viewer's access level there. */
export interface ReadableTally {
  projectId: number;
  visibility: string;
  accessLevel: number | null;
  n: number;
}

/**
 * The tallies of the events whose `by` column (author or project) is one of `ids`, by project:
 * those the viewer may read, and how many they may not. `matching`: of the query's action and
 * target type only.
 */
export async function tallyShares(
  ctx: EventContext,
  q: EventQuery,
  by: { column: 't.author_id' | 't.project_id'; ids: readonly number[] },
  matching = false,
): Promise<{ readable: ReadableTally[]; hidden: number }> {
  const { viewer } = q;
  const { action, targetType } = matching ? q.filter : {};
  let tallies = ctx.db
    .selectFrom('event_tallies as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .select((eb) => ['t.project_id', 'p.visibility', eb.fn.sum<number>('t.n').as('n')])
    .where(by.column, 'in', by.ids)
    .groupBy(['t.project_id', 'p.visibility']);
  if (action) tallies = tallies.where('t.action', '=', actionCode(action));
  if (targetType) tallies = tallies.where('t.target_type', '=', targetType);
  const rows = await tallies.execute();
  const levels = new Map(
    viewer
      ? (await memberProjects(ctx, viewer.userId, dayOf(q))).map((m) => [
          m.projectId,
          m.accessLevel,
        ])
      : [],
  );
  const readable: ReadableTally[] = [];
  let hidden = 0;
  for (const row of rows) {
    const accessLevel = levels.get(row.project_id) ?? null;
    const n = Number(row.n);
    if (viewer?.admin || canReadProject(row.visibility as Visibility, viewer, accessLevel)) {
      readable.push({ projectId: row.project_id, visibility: row.visibility, accessLevel, n });
    } else {
      hidden += n;
    }
  }
  return { readable, hidden };
}
