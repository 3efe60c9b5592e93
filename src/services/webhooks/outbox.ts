/**
 * The durable outbox: for each event written, inside its transaction, one delivery row per hook
 * of the project that subscribed to the event's kind, carrying the body built from the rows as
 * that transaction sees them. The delivery commits (or rolls back) with the event; nothing is sent
 * here, so a write never waits for a receiver.
 */
import { randomUUID } from 'node:crypto';
import {
  type HookAction,
  type Payload,
  issuePayload,
  memberPayload,
  mergeRequestPayload,
  notePayload,
  pushPayload,
} from '../../domain/webhook-payloads.js';
import { EVENT_HEADER, type HookTrigger } from '../../domain/webhook-triggers.js';
import type { ProjectLinks } from '../../domain/links.js';
import type { Action } from '../../domain/vocabulary.js';
import type { Store } from '../../store/store.js';
import type { WrittenEvent } from '../activity/event-hooks.js';
import { PayloadSources } from './payload-sources.js';

export interface EventBody {
  trigger: HookTrigger;
  payload: Payload;
}

/** The kind of event it is, as the subject of an issue/merge request hook's `action`. */
const TRACKED_ACTION: Partial<Record<Action, HookAction>> = {
  created: 'open',
  closed: 'close',
  reopened: 'reopen',
  updated: 'update',
  merged: 'merge',
  approved: 'approved',
};

/** Which hooks an event goes to and with which body; null for events no hook kind covers. */
export async function eventBody(
  tx: Store,
  event: WrittenEvent,
  links: ProjectLinks,
): Promise<EventBody | null> {
  const sources = new PayloadSources(tx);
  const [user, project] = await Promise.all([
    sources.user(event.authorId),
    sources.project(event.projectId),
  ]);
  if (!user || !project) return null;

  if (event.action === 'pushed') {
    const push = await sources.push(event.id);
    if (!push) return null;
    return {
      trigger: push.refType === 'tag' ? 'tag_push_events' : 'push_events',
      payload: pushPayload(links, { user, project, push }),
    };
  }
  if (event.action === 'joined' || event.action === 'left' || event.action === 'expired') {
    const memberId =
      event.targetType === 'User' && event.targetId ? event.targetId : event.authorId;
    const member = memberId === user.id ? user : await sources.user(memberId);
    if (!member) return null;
    const row = await tx.members.get(project.id, member.id);
    return {
      trigger: 'member_events',
      payload: memberPayload(links, {
        user,
        member,
        project,
        accessLevel: row?.access_level ?? null,
        expiresAt: row?.expires_at ?? null,
        eventName: event.action === 'joined' ? 'user_add_to_team' : 'user_remove_from_team',
        at: event.createdAt,
      }),
    };
  }
  if (event.targetId === null) return null;
  const action = TRACKED_ACTION[event.action];
  if (event.targetType === 'Issue' && action) {
    const issue = await sources.issue(event.targetId);
    if (!issue) return null;
    return {
      trigger: issue.confidential ? 'confidential_issues_events' : 'issues_events',
      payload: issuePayload(links, { user, project, issue, action }),
    };
  }
  if (event.targetType === 'MergeRequest' && action) {
    const mergeRequest = await sources.mergeRequest(event.targetId);
    if (!mergeRequest) return null;
    return {
      trigger: 'merge_requests_events',
      payload: mergeRequestPayload(links, { user, project, mergeRequest, action }),
    };
  }
  if (event.targetType === 'Note' && event.action === 'commented') {
    const note = await sources.note(event.targetId);
    if (!note) return null;
    const issue = note.noteableType === 'Issue' ? await sources.issue(note.noteableId) : undefined;
    const mergeRequest =
      note.noteableType === 'MergeRequest'
        ? await sources.mergeRequest(note.noteableId)
        : undefined;
    if (!issue && !mergeRequest) return null;
    return {
      // GitLab: notes on confidential issues go only to hooks that asked for confidential notes.
      trigger: issue?.confidential ? 'confidential_note_events' : 'note_events',
      payload: notePayload(links, { user, project, note, issue, mergeRequest }),
    };
  }
  return null;
}

/** Inserts the event's deliveries, one per subscribed hook, in `tx`. */
export async function enqueueDeliveries(
  tx: Store,
  event: WrittenEvent,
  links: ProjectLinks,
  now: number,
): Promise<number> {
  // One indexed read when the project has no hooks: most writes pay nothing more.
  const active = (await tx.webhooks.hooks(event.projectId)).filter(
    (h) => h.permanently_disabled === 0,
  );
  if (active.length === 0) return 0;
  const body = await eventBody(tx, event, links);
  if (!body) return 0;
  const hooks = active.filter((hook) => hook[body.trigger] === 1);
  if (hooks.length === 0) return 0;
  const payload = JSON.stringify(body.payload);
  const eventUuid = randomUUID();
  await tx.webhooks.enqueue(
    hooks.map((hook) => ({
      hook_id: hook.id,
      event_id: event.id,
      event_header: EVENT_HEADER[body.trigger],
      trigger: body.trigger,
      event_uuid: eventUuid,
      idempotency_key: randomUUID(),
      payload,
      status: 'pending',
      next_attempt_at: now,
      created_at: now,
    })),
  );
  return hooks.length;
}
