/** What the webhook service hands faces: hooks without their token, deliveries with their log. */
import { type AlertStatus, alertStatus } from '../../domain/webhook-failures.js';
import { HOOK_TRIGGERS, type HookTrigger } from '../../domain/webhook-triggers.js';
import type { ProjectHookRow, WebhookDeliveryRow } from '../../store/schema.js';

export interface HookView {
  id: number;
  projectId: number;
  url: string;
  name: string;
  description: string;
  /** Which kinds the hook receives. */
  triggers: Record<HookTrigger, boolean>;
  enableSslVerification: boolean;
  /** A token is set (it is never shown). */
  hasToken: boolean;
  alertStatus: AlertStatus;
  disabledUntil: number | null;
  recentFailures: number;
  createdAt: number;
}

export interface DeliveryView {
  id: number;
  hookId: number;
  eventId: number | null;
  /** `push_events`, … or the kind a test delivery asked for. */
  trigger: HookTrigger;
  test: boolean;
  eventHeader: string;
  eventUuid: string;
  idempotencyKey: string;
  /** `pending`, `delivering`, `delivered`, `failed`. */
  status: string;
  attempts: number;
  requestHeaders: Record<string, string> | null;
  requestData: unknown;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number | null;
  createdAt: number;
  attemptedAt: number | null;
  nextAttemptAt: number | null;
}

export function hookView(row: ProjectHookRow, now: number): HookView {
  const triggers = Object.fromEntries(HOOK_TRIGGERS.map((t) => [t, row[t] === 1])) as Record<
    HookTrigger,
    boolean
  >;
  const health = {
    recentFailures: row.recent_failures,
    backoffCount: row.backoff_count,
    disabledUntil: row.disabled_until,
    permanentlyDisabled: row.permanently_disabled === 1,
    retryAt: row.retry_at,
  };
  const status = alertStatus(health, now);
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    name: row.name,
    description: row.description,
    triggers,
    enableSslVerification: row.enable_ssl_verification === 1,
    hasToken: row.token !== null && row.token !== '',
    alertStatus: status,
    disabledUntil: status === 'temporarily_disabled' ? row.disabled_until : null,
    recentFailures: row.recent_failures,
    createdAt: row.created_at,
  };
}

const TEST_PREFIX = 'test:';

/** A test delivery's trigger is stored as `test:<kind>`. */
export function testTrigger(trigger: HookTrigger): string {
  return `${TEST_PREFIX}${trigger}`;
}

function parsed<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export function deliveryView(row: WebhookDeliveryRow): DeliveryView {
  const test = row.trigger.startsWith(TEST_PREFIX);
  return {
    id: row.id,
    hookId: row.hook_id,
    eventId: row.event_id,
    trigger: (test ? row.trigger.slice(TEST_PREFIX.length) : row.trigger) as HookTrigger,
    test,
    eventHeader: row.event_header,
    eventUuid: row.event_uuid,
    idempotencyKey: row.idempotency_key,
    status: row.status,
    attempts: row.attempts,
    requestHeaders: parsed(row.request_headers),
    requestData: JSON.parse(row.payload) as unknown,
    responseStatus: row.response_status,
    responseHeaders: parsed(row.response_headers),
    responseBody: row.response_body,
    error: row.error,
    durationMs: row.duration_ms,
    createdAt: row.created_at,
    attemptedAt: row.attempted_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  };
}
