/**
 * A commit, a compare range and a ref's pushes, from the push payloads pulsegate keeps (it keeps
 * no repository): the pushes are found for this viewer through the activity listings' rules.
 */
import type { FastifyReply } from 'fastify';
import type { PushMatch } from '../services/activity/object-activity.js';
import type { Services } from '../services/container.js';
import { timeTag } from './event-item.js';
import { type Html, html } from './html.js';
import type { Here, SendPage } from './object-page.js';
import {
  type KeptCommit,
  byline,
  commitList,
  eventsSection,
  projectBar,
} from './object-templates.js';

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export function pushPages(services: Services, send: SendPage) {
  async function commitPage(reply: FastifyReply, here: Here, sha: string) {
    if (!SHA.test(sha)) return null;
    const pushes = await services.objectActivity.pushes(
      here.resolved,
      { kind: 'commit', sha },
      here.viewer,
    );
    const kept = pushes.flatMap((e) => e.push?.commits ?? []).find((c) => c.id === sha);
    const head = pushes.find((e) => e.push?.commitTo === sha)?.push;
    if (!kept && !head) return null;
    const message = kept?.message ?? head?.commitTitle ?? '';
    const [subject, ...rest] = message.split('\n');
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project)}
      <header class="page-header">
        <h1>${subject || 'Commit'}</h1>
        ${byline([
          html`commit <code class="sha">${sha}</code>`,
          kept ? html`authored by ${kept.author.name}` : '',
          kept && Number.isFinite(Date.parse(kept.timestamp))
            ? html`committed ${timeTag(Date.parse(kept.timestamp), here.frame.now)}`
            : '',
        ])}
      </header>
      ${rest.join('\n').trim() ? html`<pre class="message">${rest.join('\n').trim()}</pre>` : ''}
      <p class="muted">
        pulsegate keeps the push data its hook reports (messages, authors, times), not the
        repository: there is no diff to show.
      </p>
      ${eventsSection('Pushed in', pushes, here.frame, '')}
    </article>`;
    return send(reply, here, subject || sha, body);
  }

  async function comparePage(reply: FastifyReply, here: Here, range: string) {
    const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\.\.\.([0-9a-f]{40}(?:[0-9a-f]{24})?)$/.exec(range);
    if (!m) return null;
    const [, from, to] = m as unknown as [string, string, string];
    const pushes = await services.objectActivity.pushes(
      here.resolved,
      { kind: 'range', from, to },
      here.viewer,
    );
    return pushesPage(
      reply,
      here,
      `Compare ${from.slice(0, 8)}…${to.slice(0, 8)}`,
      pushes,
      html`Changes between <code class="sha">${from}</code> and <code class="sha">${to}</code>`,
    );
  }

  async function refPage(
    reply: FastifyReply,
    here: Here,
    refType: 'branch' | 'tag',
    ref: string | null,
  ) {
    const match: PushMatch = { kind: 'ref', refType, ref };
    const pushes = await services.objectActivity.pushes(here.resolved, match, here.viewer);
    const title =
      ref === null
        ? refType === 'tag'
          ? 'Tags'
          : 'Branches'
        : `${refType === 'tag' ? 'Tag' : 'Branch'} ${ref}`;
    return pushesPage(
      reply,
      here,
      title,
      pushes,
      html`The pushes recorded for ${ref === null ? `every ${refType}` : html`<code>${ref}</code>`}`,
    );
  }

  function pushesPage(
    reply: FastifyReply,
    here: Here,
    title: string,
    pushes: Awaited<ReturnType<typeof services.objectActivity.pushes>>,
    lead: Html,
  ) {
    const seen = new Set<string>();
    const commits: KeptCommit[] = [];
    for (const event of pushes) {
      for (const c of event.push?.commits ?? []) {
        if (seen.has(c.id)) continue;
        seen.add(c.id);
        commits.push(c);
      }
    }
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project)}
      <header class="page-header">
        <h1>${title}</h1>
        <p class="muted">${lead}</p>
      </header>
      <h2>Commits</h2>
      ${
        commits.length > 0
          ? commitList(here.resolved.project, commits)
          : html`<p class="muted">
              No commits recorded here. pulsegate keeps the push data its hook reports, not the
              repository's contents.
            </p>`
      }
      ${eventsSection('Pushes', pushes, here.frame, 'No pushes recorded.')}
    </article>`;
    return send(reply, here, title, body);
  }

  return { commitPage, comparePage, refPage };
}
