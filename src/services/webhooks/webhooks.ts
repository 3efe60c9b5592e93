/**
 * Project webhooks: the maintainers' API over hooks and their deliveries, the outbox hook every
 * write runs in its transaction, and this process's delivery worker.
 */
import { randomUUID } from 'node:crypto';
import { type FieldErrors, checkHookFields, hasErrors } from '../../domain/content-rules.js';
import { InvalidRecordError, NotFoundError, UnprocessableError } from '../../domain/errors.js';
import { actionCode, actionFromCode } from '../../domain/vocabulary.js';
import { parseDestination } from '../../domain/webhook-destination.js';
import { SealedKeyError, isPlain } from '../../domain/key-sealing.js';
import { openHookToken, sealHookToken, tokenChange } from '../../domain/webhook-tokens.js';
import { EVENT_HEADER, HOOK_TRIGGERS, type HookTrigger } from '../../domain/webhook-triggers.js';
import type { ProjectLinks } from '../../domain/links.js';
import type { ProjectHookRow } from '../../store/schema.js';
import type { NewDelivery } from '../../store/webhooks.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { EventHooks, WrittenEvent } from '../activity/event-hooks.js';
import { type Actor, Ops } from '../content/context.js';
import { enqueueDeliveries, eventBody } from './outbox.js';
import { type DeliveryView, type HookView, deliveryView, hookView, testTrigger } from './views.js';
import { type WorkerOptions, WebhookWorker } from './worker.js';
import { isBigRowId, isRowId } from '../../domain/ids.js';

/** A hook as created or changed: only what was given is set. */
export interface HookInput {
  url?: string | undefined;
  token?: string | null | undefined;
  name?: string | undefined;
  description?: string | undefined;
  triggers?: Partial<Record<HookTrigger, boolean>> | undefined;
  enableSslVerification?: boolean | undefined;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  total: number;
}

/** What a manual delivery (a test, a resend) carries; the rest is the same for every one. */
type ManualDelivery = Pick<
  NewDelivery,
  'event_id' | 'event_header' | 'trigger' | 'event_uuid' | 'idempotency_key' | 'payload'
>;

/** Deliveries the page shows per hook. */
export const RECENT_DELIVERIES = 10;

export interface ProjectWebhooks {
  project: { id: number; fullPath: string; name: string };
  hooks: { hook: HookView; deliveries: DeliveryView[] }[];
}

export class WebhookService {
  readonly worker: WebhookWorker;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: {
      allowLocal: boolean;
      /** The instance's external URL and SSH endpoint (the payloads' links), read at each use. */
      links: () => ProjectLinks;
      /** Seals hook tokens (derived for webhook tokens); null keeps them in plain envelopes. */
      kek: Buffer | null;
    },
    workerOptions: Partial<WorkerOptions> = {},
  ) {
    this.worker = new WebhookWorker(store, clock, {
      allowLocal: settings.allowLocal,
      instance: () => settings.links().externalUrl,
      openToken: (hook) =>
        hook.token === null ? null : openHookToken(hook.token, settings.kek, hook.url, hook.id),
      ...workerOptions,
    });
  }

  /**
   * At start: seals the tokens still in plain envelopes (written without a key-encryption key,
   * or by migration 022 from clear text) when one is configured now. Safe in several processes at
   * once: a token is replaced only if it is still the one read. Counts the tokens that stay
   * unsealed (no key-encryption key) and those that cannot be opened (sealed under another key, or
   * for another URL): their hooks' deliveries fail with that reason until the token is set again.
   */
  async sealTokens(): Promise<{ unsealed: number; unreadable: number }> {
    const { kek } = this.settings;
    let unsealed = 0;
    let unreadable = 0;
    for (const hook of await this.store.webhooks.hooksWithTokens()) {
      const envelope = hook.token!;
      let token: string;
      try {
        token = openHookToken(envelope, kek, hook.url, hook.id);
      } catch (error) {
        if (!(error instanceof SealedKeyError)) throw error;
        unreadable++;
        continue;
      }
      if (!isPlain(envelope)) continue;
      if (kek === null) {
        unsealed++;
        continue;
      }
      await this.store.webhooks.replaceToken(
        hook.id,
        { url: hook.url, token: envelope },
        sealHookToken(token, kek, hook.url),
      );
    }
    return { unsealed, unreadable };
  }

  /** Registers the outbox (in every write's transaction) and the worker's wake-up (after commit). */
  attach(hooks: EventHooks): void {
    hooks.inTransaction(async (tx, event) => {
      await enqueueDeliveries(tx, event, this.settings.links(), this.clock.now());
    });
    hooks.afterCommit(() => this.worker.poke());
  }

  private async hooksProject(actor: Actor | null, idOrPath: string) {
    const ops = new Ops({ store: this.store, now: this.clock.now(), actor, recorder: null });
    const { project } = await ops.projectFor(idOrPath, 'admin_hooks');
    return project;
  }

  /** A hook of a project whose hooks the actor may administer; 404 when the project has none such. */
  private async projectHook(
    actor: Actor | null,
    idOrPath: string,
    hookId: number,
  ): Promise<ProjectHookRow> {
    const project = await this.hooksProject(actor, idOrPath);
    const hook = isRowId(hookId) ? await this.store.webhooks.hook(project.id, hookId) : undefined;
    if (!hook) throw new NotFoundError('Hook');
    return hook;
  }

  /** The model's validations of the free-text fields given (GitLab's 400 with `message`). */
  private checkFields(input: HookInput): void {
    const errors: FieldErrors = {};
    checkHookFields(errors, input);
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
  }

  private checkUrl(url: string): void {
    // Names are resolved and checked again on every delivery; here what no DNS answer changes.
    if (url.length > 2048 || !parseDestination(url, this.settings.allowLocal).ok) {
      throw new UnprocessableError('Invalid url given');
    }
  }

  async list(actor: Actor | null, idOrPath: string): Promise<HookView[]> {
    const project = await this.hooksProject(actor, idOrPath);
    const now = this.clock.now();
    return (await this.store.webhooks.hooks(project.id)).map((row) => hookView(row, now));
  }

  async get(actor: Actor | null, idOrPath: string, hookId: number): Promise<HookView> {
    return hookView(await this.projectHook(actor, idOrPath, hookId), this.clock.now());
  }

  async create(
    actor: Actor | null,
    idOrPath: string,
    input: HookInput & { url: string },
  ): Promise<HookView> {
    const project = await this.hooksProject(actor, idOrPath);
    this.checkUrl(input.url);
    this.checkFields(input);
    const triggers = { push_events: true, ...input.triggers };
    const flags = Object.fromEntries(HOOK_TRIGGERS.map((t) => [t, triggers[t] ? 1 : 0])) as Record<
      HookTrigger,
      number
    >;
    const row = await this.store.webhooks.createHook({
      project_id: project.id,
      url: input.url,
      token: input.token ? sealHookToken(input.token, this.settings.kek, input.url) : null,
      name: input.name ?? '',
      description: input.description ?? '',
      ...flags,
      enable_ssl_verification: input.enableSslVerification === false ? 0 : 1,
      created_at: this.clock.now(),
    });
    return hookView(row, this.clock.now());
  }

  async update(
    actor: Actor | null,
    idOrPath: string,
    hookId: number,
    input: HookInput,
  ): Promise<HookView> {
    const found = await this.projectHook(actor, idOrPath, hookId);
    if (input.url !== undefined) this.checkUrl(input.url);
    this.checkFields(input);
    const row = await this.store.transaction(async (tx) => {
      // The URL the token is judged against is the one this edit replaces, read under a lock:
      // two edits at once cannot leave the old token on a new URL.
      const hook = await tx.webhooks.hookForUpdate(found.id);
      if (!hook) throw new NotFoundError('Hook');
      const patch: Parameters<Store['webhooks']['updateHook']>[1] = {};
      if (input.url !== undefined) patch.url = input.url;
      const url = input.url ?? hook.url;
      const change = tokenChange(hook.url, input);
      if (change.kind === 'clear') patch.token = null;
      else if (change.kind === 'set')
        patch.token = sealHookToken(change.token, this.settings.kek, url);
      if (input.name !== undefined) patch.name = input.name;
      if (input.description !== undefined) patch.description = input.description;
      if (input.enableSslVerification !== undefined) {
        patch.enable_ssl_verification = input.enableSslVerification ? 1 : 0;
      }
      for (const trigger of HOOK_TRIGGERS) {
        const value = input.triggers?.[trigger];
        if (value !== undefined) patch[trigger] = value ? 1 : 0;
      }
      // GitLab: saving a hook re-enables it (an administrator has looked at it).
      Object.assign(patch, {
        recent_failures: 0,
        backoff_count: 0,
        disabled_until: null,
        permanently_disabled: 0,
        retry_at: null,
      });
      return tx.webhooks.updateHook(hook.id, patch);
    });
    // Deliveries that waited for the hook (disabled, failing) go now.
    this.worker.poke();
    return hookView(row, this.clock.now());
  }

  async remove(actor: Actor | null, idOrPath: string, hookId: number): Promise<void> {
    const hook = await this.projectHook(actor, idOrPath, hookId);
    if (!(await this.store.transaction((tx) => tx.webhooks.deleteHook(hook.id)))) {
      throw new NotFoundError('Hook');
    }
  }

  /**
   * `POST …/hooks/:hook_id/test/:trigger`: a sample built from the project's newest matching
   * activity, queued to this hook alone whatever it subscribes to, and sent at once even when the
   * hook is disabled (GitLab: a test that succeeds enables the hook again). 422 when there is none.
   */
  async test(
    actor: Actor | null,
    idOrPath: string,
    hookId: number,
    trigger: HookTrigger,
  ): Promise<DeliveryView> {
    const hook = await this.projectHook(actor, idOrPath, hookId);
    const sample = await this.sampleEvent(hook.project_id, trigger, actor);
    if (!sample) throw new UnprocessableError(SAMPLE_MISSING[trigger]);
    const body = await eventBody(this.store, sample, this.settings.links());
    if (!body) throw new UnprocessableError(SAMPLE_MISSING[trigger]);
    return this.sendNow(hook.id, {
      event_id: null,
      event_header: EVENT_HEADER[trigger],
      trigger: testTrigger(trigger),
      event_uuid: randomUUID(),
      idempotency_key: randomUUID(),
      payload: JSON.stringify(body.payload),
    });
  }

  private async sampleEvent(
    projectId: number,
    trigger: HookTrigger,
    actor: Actor | null,
  ): Promise<WrittenEvent | null> {
    const webhooks = this.store.webhooks;
    const tracked = ['created', 'updated', 'closed', 'reopened', 'merged'] as const;
    let row;
    switch (trigger) {
      case 'push_events':
      case 'tag_push_events': {
        // The newest push of the kind asked for (branch or tag).
        row = await webhooks.newestPush(
          projectId,
          trigger === 'tag_push_events' ? 'tag' : 'branch',
        );
        break;
      }
      case 'issues_events':
      case 'confidential_issues_events':
        row = await webhooks.newestEvent(projectId, tracked.map(actionCode), 'Issue');
        break;
      case 'merge_requests_events':
        row = await webhooks.newestEvent(projectId, tracked.map(actionCode), 'MergeRequest');
        break;
      case 'note_events':
      case 'confidential_note_events':
        row = await webhooks.newestEvent(projectId, [actionCode('commented')], 'Note');
        break;
      case 'member_events':
        row = await webhooks.newestEvent(projectId, [actionCode('joined')], null);
        if (!row && actor) {
          return {
            id: 0,
            projectId,
            authorId: actor.user.id,
            action: 'joined',
            targetType: null,
            targetId: null,
            issueId: null,
            createdAt: this.clock.now(),
          };
        }
        break;
    }
    if (!row) return null;
    return {
      id: row.id,
      projectId: row.project_id,
      authorId: row.author_id,
      action: actionFromCode(row.action),
      targetType: row.target_type,
      targetId: row.target_id,
      issueId: row.issue_id,
      createdAt: row.created_at,
    };
  }

  async deliveries(
    actor: Actor | null,
    idOrPath: string,
    hookId: number,
    page: { offset: number; limit: number },
  ): Promise<DeliveryPage> {
    const hook = await this.projectHook(actor, idOrPath, hookId);
    const [rows, total] = await Promise.all([
      this.store.webhooks.recent(hook.id, page.limit, page.offset),
      this.store.webhooks.countFor(hook.id),
    ]);
    return { deliveries: rows.map(deliveryView), total };
  }

  /**
   * Sends a delivery again: the same body, Event-UUID and Idempotency-Key, as a new log entry, at
   * once even when the hook is disabled (a success enables it again).
   */
  async resend(
    actor: Actor | null,
    idOrPath: string,
    hookId: number,
    deliveryId: number,
  ): Promise<DeliveryView> {
    const hook = await this.projectHook(actor, idOrPath, hookId);
    const original = isBigRowId(deliveryId)
      ? await this.store.webhooks.delivery(hook.id, deliveryId)
      : undefined;
    if (!original) throw new NotFoundError('Event');
    return this.sendNow(hook.id, {
      event_id: original.event_id,
      event_header: original.event_header,
      trigger: original.trigger,
      event_uuid: original.event_uuid,
      idempotency_key: original.idempotency_key,
      payload: original.payload,
    });
  }

  /**
   * Queues one manual delivery to a hook and wakes the worker: it goes at once, even when the
   * hook is disabled (a success enables it again).
   */
  private async sendNow(hookId: number, delivery: ManualDelivery): Promise<DeliveryView> {
    const now = this.clock.now();
    await this.store.webhooks.enqueue([
      {
        hook_id: hookId,
        ...delivery,
        status: 'pending',
        next_attempt_at: now,
        created_at: now,
        manual: 1,
      },
    ]);
    this.worker.poke();
    const [queued] = await this.store.webhooks.recent(hookId, 1);
    return deliveryView(queued!);
  }

  /** The settings page: every hook of the project with its newest deliveries. */
  async overview(actor: Actor | null, idOrPath: string): Promise<ProjectWebhooks> {
    const project = await this.hooksProject(actor, idOrPath);
    const now = this.clock.now();
    const rows = await this.store.webhooks.hooks(project.id);
    const hooks = await Promise.all(
      rows.map(async (row) => ({
        hook: hookView(row, now),
        deliveries: (await this.store.webhooks.recent(row.id, RECENT_DELIVERIES)).map(deliveryView),
      })),
    );
    return { project: { id: project.id, fullPath: project.full_path, name: project.name }, hooks };
  }
}

const SAMPLE_MISSING: Record<HookTrigger, string> = {
  push_events: 'Ensure the project has at least one commit.',
  tag_push_events: 'Ensure the project has at least one tag.',
  issues_events: 'Ensure the project has issues.',
  confidential_issues_events: 'Ensure the project has issues.',
  merge_requests_events: 'Ensure the project has merge requests.',
  note_events: 'Ensure the project has notes.',
  confidential_note_events: 'Ensure the project has notes.',
  member_events: 'Ensure the project has members.',
};
