/**
 * Notes (comments) on issues, merge requests and project snippets. A note writes "commented" with
 * the note as target; a note on an issue carries the issue's id, so a note on a confidential issue
 * stays as hidden as the issue. Adding a note touches its noteable's `updated_at`, as GitLab does.
 */
import { InvalidRecordError, NotFoundError } from '../../domain/errors.js';
import { type FieldErrors, checkNoteBody, hasErrors } from '../../domain/content-rules.js';
import { canReadPersonalSnippet } from '../../domain/visibility.js';
import type { NoteRow, SnippetRow } from '../../store/schema.js';
import { type NoteView, noteView } from '../views.js';
import { Ops, type ProjectAccess } from './context.js';
import { IssueOps } from './issues.js';
import type { Page } from './members.js';
import { MergeRequestOps } from './merge-requests.js';
import { isRowId } from '../../domain/ids.js';

/** What a note hangs on, as the REST paths name it. */
export type NoteableRef =
  | { type: 'Issue'; iid: number }
  | { type: 'MergeRequest'; iid: number }
  | { type: 'Snippet'; id: number };

interface Noteable {
  type: 'Issue' | 'MergeRequest' | 'Snippet';
  id: number;
  /** The iid shown on notes (`noteable_iid`); null for snippets. */
  iid: number | null;
  /** Set for issues: events of notes on it carry it for the confidentiality check. */
  issueId: number | null;
}

export interface NoteListQuery extends Page {
  sort: 'asc' | 'desc';
}

export class NoteOps extends Ops {
  async create(idOrPath: string, on: NoteableRef, body: string): Promise<NoteView> {
    const access = await this.project(idOrPath);
    const noteable = await this.noteable(access, on);
    this.require(access, 'create_note');
    const errors: FieldErrors = {};
    checkNoteBody(errors, body);
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
    const row = await this.store.notes.create({
      project_id: access.project.id,
      author_id: this.actor.user.id,
      body,
      noteable_type: noteable.type,
      noteable_id: noteable.id,
      system: 0,
      attachment: null,
      created_at: this.now,
      updated_at: this.now,
    });
    if (noteable.type === 'Issue') {
      await this.store.issues.update(noteable.id, { updated_at: this.now });
    } else if (noteable.type === 'MergeRequest') {
      await this.store.mergeRequests.update(noteable.id, { updated_at: this.now });
    }
    await this.recorder.record({
      projectId: access.project.id,
      authorId: row.author_id,
      action: 'commented',
      targetType: 'Note',
      targetId: row.id,
      issueId: noteable.issueId,
    });
    return (await this.views([row], noteable))[0]!;
  }

  async list(
    idOrPath: string,
    on: NoteableRef,
    q: NoteListQuery,
  ): Promise<{ notes: NoteView[]; total: number }> {
    const access = await this.project(idOrPath);
    const noteable = await this.noteable(access, on);
    const [rows, total] = await Promise.all([
      this.store.notes.list({
        noteableType: noteable.type,
        noteableId: noteable.id,
        sort: q.sort,
        offset: q.offset,
        limit: q.limit,
      }),
      this.store.notes.count(noteable.type, noteable.id),
    ]);
    return { notes: await this.views(rows, noteable), total };
  }

  /** The noteable if this reader may see it (404 naming it otherwise). */
  private async noteable(access: ProjectAccess, on: NoteableRef): Promise<Noteable> {
    switch (on.type) {
      case 'Issue': {
        const issue = await new IssueOps(this.context).readable(access, on.iid);
        return { type: 'Issue', id: issue.id, iid: issue.iid, issueId: issue.id };
      }
      case 'MergeRequest': {
        const mr = await new MergeRequestOps(this.context).find(access, on.iid);
        return { type: 'MergeRequest', id: mr.id, iid: mr.iid, issueId: null };
      }
      case 'Snippet': {
        const snippet = await this.snippet(access, on.id);
        return { type: 'Snippet', id: snippet.id, iid: null, issueId: null };
      }
    }
  }

  /** A project snippet: in this project, and readable (private ones for members only). */
  private async snippet(access: ProjectAccess, id: number): Promise<SnippetRow> {
    const [snippet] = isRowId(id) ? await this.store.content.snippets([id]) : [];
    const viewer = this.context.actor?.viewer ?? null;
    const readable =
      snippet !== undefined &&
      snippet.project_id === access.project.id &&
      (access.accessLevel !== null ||
        canReadPersonalSnippet(
          { authorId: snippet.author_id, visibility: snippet.visibility },
          viewer,
        ));
    if (!readable) throw new NotFoundError('Snippet');
    return snippet;
  }

  private async views(rows: NoteRow[], noteable: Noteable): Promise<NoteView[]> {
    const users = await this.users(rows.map((r) => r.author_id));
    return rows.map((row) => noteView(row, users.get(row.author_id) ?? null, noteable.iid));
  }
}
