/** What an event listing asks for, and what its queries run against. */
import type { Kysely, RawBuilder } from 'kysely';
import type { EventFilter } from '../../domain/filters.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import type { Viewer } from '../../domain/visibility.js';
import type { SharedRead } from '../per-turn.js';
import type { FollowedSet, StarredProject, StarredSet } from './social.js';
import type { RowCache } from '../row-cache.js';
import type { Database } from '../schema.js';
import type { TurnReading } from '../turn-reading.js';

/** Where the events come from. */
export type EventSource =
  /** Events authored by a user, in projects the viewer can read. */
  | { kind: 'author'; userId: number }
  /** Events of one project the caller has already found readable. */
  | {
      kind: 'project';
      projectId: number;
      visibility: string;
      /** The viewer's access level in this project, or null for non-members. */
      accessLevel: number | null;
      /** Only this user's events there: one arm of a user's listing (walks.ts `authorParts`). */
      authorId?: number;
    }
  /** Events, by anyone, in every project the user is a member of (REST `scope=all`). */
  | { kind: 'memberships'; userId: number }
  /** Events in the projects the user starred and may read (REST `scope=starred`; social.ts). */
  | { kind: 'starred'; userId: number; projects: readonly StarredProject[]; set: string }
  /** Events by the users the user follows, in projects they may read (REST `scope=followed`). */
  | { kind: 'followed'; userId: number; followees: readonly number[]; set: string };

/** A starred or followed listing's source: it carries the viewer's set and its digest. */
export type SocialSource = Extract<EventSource, { kind: 'starred' | 'followed' }>;

export function isSocial(source: EventSource): source is SocialSource {
  return source.kind === 'starred' || source.kind === 'followed';
}

export interface EventQuery {
  source: EventSource;
  filter: EventFilter;
  viewer: Viewer | null;
  /** Only ids up to this settled head, so every query of one answer describes the same moment. */
  upTo?: number;
  /** The UTC day memberships are judged on (domain/membership-expiry); absent: today. */
  day?: string;
  /** Set by the store once known: no note on a merge request can be hidden from the viewer. */
  clearOfPrivateGuest?: boolean;
  /**
   * A project's or author's walk written once for a whole set: its id is this reference to each
   * member of the set in the enclosing statement (walks.ts `eachWalk`), not the source's own.
   */
  each?: RawBuilder<number>;
}

/** The day a query judges memberships on. */
export function dayOf(q: EventQuery): string {
  return q.day ?? membershipDay(Date.now());
}

export type EventWindow =
  | { kind: 'offset'; offset: number; limit: number }
  /** Keyset: ids strictly beyond `afterId` in the sort direction (GraphQL cursors). */
  | { kind: 'keyset'; afterId?: number; beforeId?: number; limit: number; reverse?: boolean };

/** A project the user of a `memberships` source belongs to, as its per-project walk needs it. */
export interface MemberProject {
  projectId: number;
  visibility: string;
  accessLevel: number;
}

/** A user's member projects, expired or not, with their expiry days. */
export interface Memberships {
  projects: MemberProject[];
  expiries: Array<string | null>;
}

/** What every part of the event store runs against. */
export interface EventContext {
  db: Kysely<Database>;
  /** Statements whose plan does not depend on their parameters: planned once (database.ts). */
  prepared: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /** A user's memberships with their expiry days, kept while memberships and projects stand. */
  members: RowCache<number, Memberships>;
  /**
   * A viewer's readable starred projects (by viewer and day) and followed users, kept while
   * stars, follows, projects, memberships and users stand (social.ts).
   */
  starred: RowCache<string, StarredSet>;
  followed: RowCache<string, FollowedSet>;
  /** Walk choices kept a while (`keptChoice`): one joined walk or merged ones, by listing and viewer. */
  walkChoices: Map<string, { joined: boolean; until: number }>;
  /** PostgreSQL outside a transaction: the shared reading the head comes from. */
  turnReading?: SharedRead<TurnReading>;
}

/** How long a choice between one joined walk and merged ones is kept (`keepChoice`). */
const CHOICE_KEPT_MS = 10_000;
const CHOICES_KEPT = 10_000;

/**
 * A choice kept for `key`, or undefined. Choices only make a walk cheaper or dearer, never its
 * rows other: reading what they depend on with every request would cost more than they save.
 */
export function keptChoice(ctx: EventContext, key: string): boolean | undefined {
  const kept = ctx.walkChoices.get(key);
  return kept && kept.until > Date.now() ? kept.joined : undefined;
}

export function keepChoice(ctx: EventContext, key: string, joined: boolean): boolean {
  if (ctx.walkChoices.size >= CHOICES_KEPT) ctx.walkChoices.clear();
  ctx.walkChoices.set(key, { joined, until: Date.now() + CHOICE_KEPT_MS });
  return joined;
}
