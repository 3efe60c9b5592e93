/**
 * How an event reads in a feed, in GitLab's words (app/views/events/_event*.html.haml): the verb
 * (`action_name`), what it acts on ("issue #3 «Crash»", "merge request !4", "branch main") and the
 * project, either as the scope ("… at acme / api") or as the object ("joined project acme / api").
 * Pure: every face that prints sentences (pages, feeds) builds them from these parts.
 */

export interface WordedEvent {
  actionName: string;
  targetType: string | null;
  targetId: number | null;
  targetIid: number | null;
  targetTitle: string | null;
  note: { noteableType: string; noteableId: number; noteableIid: number | null } | null;
  noteableTitle: string | null;
  push: { refType: string; ref: string } | null;
}

export interface EventObject {
  /** "issue", "merge request", "branch", … */
  label: string;
  /** "#3", "!4", "$7", "main"; null when GitLab shows none (milestones, wiki pages). */
  reference: string | null;
  title: string | null;
}

export interface EventWording {
  verb: string;
  /** Null when the project itself is what the event is about. */
  object: EventObject | null;
}

function trackable(
  type: string | null,
  iid: number | null,
  id: number | null,
  title: string | null,
) {
  switch (type) {
    case 'Issue':
      return { label: 'issue', reference: iid === null ? null : `#${iid}`, title };
    case 'MergeRequest':
      return { label: 'merge request', reference: iid === null ? null : `!${iid}`, title };
    case 'Milestone':
      return { label: 'milestone', reference: null, title };
    case 'Snippet':
      return { label: 'snippet', reference: id === null ? null : `$${id}`, title };
    case 'Commit':
      return { label: 'commit', reference: null, title };
    case 'WikiPage::Meta':
      return { label: 'wiki page', reference: null, title };
    case 'DesignManagement::Design':
      return { label: 'design', reference: null, title };
    default:
      return null;
  }
}

export function eventWording(event: WordedEvent): EventWording {
  if (event.push) {
    return {
      verb: event.actionName,
      object: { label: event.push.refType, reference: event.push.ref, title: null },
    };
  }
  if (event.targetType === 'Note') {
    const note = event.note;
    const on = note
      ? trackable(note.noteableType, note.noteableIid, note.noteableId, event.noteableTitle)
      : null;
    return {
      verb: event.actionName,
      object: on ?? { label: 'a note', reference: null, title: null },
    };
  }
  return {
    verb: event.actionName,
    object: trackable(event.targetType, event.targetIid, event.targetId, event.targetTitle),
  };
}

/** A project's full path as GitLab names it in feeds: `acme / platform / api`. */
export function projectDisplayName(fullPath: string): string {
  return fullPath.split('/').join(' / ');
}

/** The whole sentence as text: "alice commented on issue #3 «Crash» at acme / api". */
export function eventSentence(
  author: string,
  wording: EventWording,
  projectFullPath: string,
): string {
  const project = projectDisplayName(projectFullPath);
  const { verb, object } = wording;
  if (!object) return `${author} ${verb} project ${project}`;
  const parts = [author, verb, object.label];
  if (object.reference !== null) parts.push(object.reference);
  if (object.title !== null) parts.push(`«${object.title}»`);
  return `${parts.join(' ')} at ${project}`;
}
