/**
 * Where an event's target lives on the web, in GitLab's URL scheme (`/acme/api/-/issues/3`): feed
 * entries link there. Built on the project's web URL the API already emits (links.ts).
 */
import { projectWebUrl } from './links.js';
import { BLANK_SHA, type RefType } from './vocabulary.js';

export interface LinkedEvent {
  project: { fullPath: string };
  targetType: string | null;
  targetId: number | null;
  targetIid: number | null;
  note: { id: number; noteableType: string; noteableId: number; noteableIid: number | null } | null;
  push: {
    refType: RefType;
    ref: string;
    commitFrom: string | null;
    commitTo: string | null;
  } | null;
}

const ROUTES: Record<string, string> = {
  Issue: 'issues',
  MergeRequest: 'merge_requests',
  Milestone: 'milestones',
};

function ofNoteable(base: string, type: string, id: number, iid: number | null): string {
  const route = ROUTES[type];
  if (route && iid !== null) return `${base}/-/${route}/${iid}`;
  if (type === 'Snippet') return `${base}/-/snippets/${id}`;
  return base;
}

/** The target's page: issue, merge request, milestone, snippet, note (anchored), push, project. */
export function eventTargetUrl(externalUrl: string, event: LinkedEvent): string {
  const base = projectWebUrl(externalUrl, event.project);
  const { targetType, targetId, targetIid, note, push } = event;
  if (note) {
    const page = ofNoteable(base, note.noteableType, note.noteableId, note.noteableIid);
    return `${page}#note_${note.id}`;
  }
  if (push) {
    const ref = encodeURIComponent(push.ref);
    if (push.commitTo === null || push.commitTo === BLANK_SHA) {
      return push.refType === 'tag' ? `${base}/-/tags` : `${base}/-/branches`;
    }
    if (push.commitFrom !== null && push.commitFrom !== BLANK_SHA) {
      return `${base}/-/compare/${push.commitFrom}...${push.commitTo}`;
    }
    return push.refType === 'tag' ? `${base}/-/tags/${ref}` : `${base}/-/commits/${ref}`;
  }
  if (targetType !== null && targetId !== null && targetType !== 'Project') {
    return ofNoteable(base, targetType, targetId, targetIid);
  }
  return base;
}
