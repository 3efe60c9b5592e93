/** Issues and merge requests across every project the viewer can read them in. */
import type { Viewer } from '../../domain/visibility.js';
import type { TrackedAcrossQuery } from '../../store/navigation.js';
import type { IssueRow, MergeRequestRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { TrackedListing } from '../../store/tracked-listing.js';
import type { IssueDetail } from '../content/issues.js';
import type { MergeRequestDetail } from '../content/merge-requests.js';
import { issueDetails, mergeRequestDetails } from '../content/issuable-details.js';
import type { Listed, Slice, TrackedListParams } from './lists.js';

/** One kind of cross-project list: its page of rows and their total, and the rows as details. */
interface Kind<R, T> {
  read(tracked: TrackedListing, query: TrackedAcrossQuery): Promise<[R[], number]>;
  details(store: Store, rows: R[], project: null): Promise<T[]>;
}

const ISSUES: Kind<IssueRow, IssueDetail> = {
  read: (tracked, query) => Promise.all([tracked.issues(query), tracked.countIssues(query)]),
  details: issueDetails,
};

const MERGE_REQUESTS: Kind<MergeRequestRow, MergeRequestDetail> = {
  read: (tracked, query) =>
    Promise.all([tracked.mergeRequests(query), tracked.countMergeRequests(query)]),
  details: mergeRequestDetails,
};

export class TrackedAcross {
  constructor(private readonly store: Store) {}

  /** `GET /issues`: across every project the viewer can read, confidential ones as GitLab shows them. */
  issues(p: TrackedListParams, viewer: Viewer | null, slice: Slice): Promise<Listed<IssueDetail>> {
    return this.listed(ISSUES, p, viewer, slice);
  }

  /** `GET /merge_requests`: across every project the viewer can read them in. */
  mergeRequests(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<MergeRequestDetail>> {
    return this.listed(MERGE_REQUESTS, p, viewer, slice);
  }

  /** A page of one kind: its rows and total, each row as its detail. */
  private async listed<R, T>(
    kind: Kind<R, T>,
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<T>> {
    const query = this.trackedQuery(p, viewer, slice);
    if (!query) return { items: [], total: 0 };
    const [rows, total] = await kind.read(this.store.navigation.tracked, query);
    return { items: await kind.details(this.store, rows, null), total };
  }

  /**
   * The query of a cross-project list, or null when the scope names nothing: pulsegate keeps no
   * assignees, so `assigned_to_me` is always empty.
   */
  private trackedQuery(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): TrackedAcrossQuery | null {
    if (p.scope === 'assigned_to_me') return null;
    let authorId = p.authorId;
    if (p.scope === 'created_by_me') {
      if (!viewer) return null;
      if (authorId !== undefined && authorId !== viewer.userId) return null;
      authorId = viewer.userId;
    }
    return {
      viewer,
      authorId,
      state: p.state,
      search: p.search,
      orderBy: p.orderBy,
      sort: p.sort,
      ...slice,
    };
  }
}
