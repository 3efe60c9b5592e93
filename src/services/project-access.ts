/**
 * The one project resolver: `:id` of `/projects/:id` (a number, or a full path containing '/'),
 * with the viewer's access level on the day. Unknown and unreadable are both NOT_FOUND, as GitLab.
 */
import { NotFoundError } from '../domain/errors.js';
import { isRowId } from '../domain/ids.js';
import { type Viewer, canReadProject } from '../domain/visibility.js';
import type { Visibility } from '../domain/vocabulary.js';
import type { ProjectRow } from '../store/schema.js';
import type { Store } from '../store/store.js';

const SIGNED_NUMERIC_ID = /^-?\d+$/;

/** A project the viewer may read, and what they are in it (null: anonymous or no member). */
export interface ReadableProject {
  project: ProjectRow;
  accessLevel: number | null;
}

export async function readableProject(
  store: Store,
  idOrPath: string | number,
  viewer: Viewer | null,
  day: string,
): Promise<ReadableProject> {
  const key = String(idOrPath);
  let project: ProjectRow | undefined;
  if (SIGNED_NUMERIC_ID.test(key)) {
    const id = Number(key);
    project = isRowId(id) ? await store.projects.byId(id) : undefined;
  } else if (key.includes('/')) {
    project = await store.projects.byFullPath(key);
  }
  if (!project) throw new NotFoundError('Project');
  const accessLevel = viewer
    ? await store.projects.accessLevel(project.id, viewer.userId, day)
    : null;
  if (!canReadProject(project.visibility as Visibility, viewer, accessLevel)) {
    throw new NotFoundError('Project');
  }
  return { project, accessLevel };
}
