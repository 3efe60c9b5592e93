/**
 * One event as a feed entry: GitLab's feed title ("alice opened issue #3 at acme / api", after
 * EventsHelper#event_feed_title), the target's link, the author, the time, and a short summary.
 */
import { eventTargetUrl } from '../domain/event-links.js';
import { userWebUrl } from '../domain/links.js';
import type { EventView } from '../services/activity/activity.js';

export interface FeedEntry {
  id: string;
  title: string;
  link: string;
  updated: number;
  author: { name: string; username: string; uri: string } | null;
  summary: string | null;
}

/** `acme/platform/api` → `acme / platform / api`, as GitLab names a project in titles. */
export function projectTitle(fullPath: string): string {
  return fullPath.split('/').join(' / ');
}

/** `MergeRequest` → `merge request`, `WikiPage::Meta` → `wiki page` (GitLab's titleize.downcase). */
function typeName(targetType: string): string {
  const base = targetType.split('::')[0]!;
  return base.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** GitLab's reference of a target: `#3` issue, `!4` merge request, `$5` snippet. */
function reference(type: string, iid: number | null, id: number | null): string | null {
  if (type === 'Issue') return iid === null ? null : `#${iid}`;
  if (type === 'MergeRequest') return iid === null ? null : `!${iid}`;
  if (type === 'Snippet') return id === null ? null : `$${id}`;
  return null;
}

export function entryTitle(event: EventView): string {
  const who = event.author?.username ?? 'Someone';
  const where = projectTitle(event.project.fullPath);
  const words = [who, event.actionName];
  const { push, note, targetType } = event;
  if (push) {
    words.push(push.refType, push.ref, 'at');
  } else if (note) {
    words.push(typeName(note.noteableType));
    const ref = reference(note.noteableType, note.noteableIid, note.noteableId);
    if (ref) words.push(ref);
    words.push('at');
  } else if (targetType === 'Milestone') {
    words.push('milestone');
    if (event.targetIid !== null) words.push(`%${event.targetIid}`);
    words.push('in');
  } else if (targetType !== null && targetType !== 'Project') {
    words.push(typeName(targetType));
    const ref = reference(targetType, event.targetIid, event.targetId);
    if (ref) words.push(ref);
    words.push('at');
  }
  words.push(where);
  return words.join(' ');
}

function summaryOf(event: EventView): string | null {
  if (event.note) return event.note.body;
  if (event.push) {
    const titles = event.push.commits.map((c) => `${c.id.slice(0, 8)} ${c.message.split('\n')[0]}`);
    return titles.length > 0 ? titles.join('\n') : event.push.commitTitle;
  }
  return event.targetTitle;
}

export function feedEntry(event: EventView, externalUrl: string): FeedEntry {
  const host = new URL(externalUrl).hostname;
  return {
    // A tag URI (RFC 4151): stable across ports and schemes, unique per event.
    id: `tag:${host},2005:Event/${event.id}`,
    title: entryTitle(event),
    link: eventTargetUrl(externalUrl, event),
    updated: event.createdAt,
    author: event.author && {
      name: event.author.name,
      username: event.author.username,
      uri: userWebUrl(externalUrl, event.author),
    },
    summary: summaryOf(event),
  };
}
