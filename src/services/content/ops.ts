/**
 * LOCAL WRAPPER (branch git-push only; the lead's ContentOps replaces this file): the content
 * operations a write gets, here only `pushes`, so the push endpoint runs before ContentOps lands.
 */
import type { OpsContext } from './context.js';
import { PushOps } from './pushes.js';

export class ContentOps {
  readonly pushes: PushOps;

  constructor(readonly context: OpsContext) {
    this.pushes = new PushOps(context);
  }
}
