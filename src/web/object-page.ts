/**
 * What the pages under a project's `/-/` share: the request's viewer and project as they may read
 * it, the content reads for that viewer (the REST routes' own), and the one way a page goes out.
 */
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../domain/errors.js';
import type { Viewer } from '../domain/visibility.js';
import type { ResolvedProject } from '../services/activity/activity.js';
import type { ContentOps } from '../services/content/ops.js';
import type { Services } from '../services/container.js';
import type { PageContext } from './guard.js';
import { type Html, layout, sendHtml } from './html.js';
import { avatarImageSources } from './identicon.js';
import type { ObjectFrame } from './object-templates.js';

/** An iid or id in a path: a positive number of at most ten digits. */
export const IID = /^[1-9]\d{0,9}$/;

/** A project page's request: who asks, and the project as they may read it. */
export interface Here {
  ctx: PageContext | null;
  viewer: Viewer | null;
  resolved: ResolvedProject;
  path: string;
  ops: ContentOps;
  frame: ObjectFrame;
}

export type SendPage = (reply: FastifyReply, here: Here, title: string, body: Html) => FastifyReply;

/** Null when not found (or not readable by this viewer). */
export async function found<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

export function objectPageSender(services: Services): SendPage {
  return (reply, here, title, body) =>
    sendHtml(
      reply,
      200,
      layout(`${title} · ${here.resolved.project.fullPath}`, body, here.ctx?.nav ?? null),
      avatarImageSources(services.config),
    );
}
