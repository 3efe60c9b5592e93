/** GitLab's ProjectHook entity and hook event log entries (never the token). */
import { HOOK_TRIGGERS, type HookTrigger } from '../domain/webhook-triggers.js';
import type { DeliveryView, HookView } from '../services/webhooks/views.js';
import { iso } from './present.js';

export function presentHook(hook: HookView): Record<string, unknown> {
  const flags = Object.fromEntries(HOOK_TRIGGERS.map((t) => [t, hook.triggers[t]]));
  return {
    id: hook.id,
    url: hook.url,
    name: hook.name,
    description: hook.description,
    project_id: hook.projectId,
    ...flags,
    push_events_branch_filter: '',
    enable_ssl_verification: hook.enableSslVerification,
    alert_status: hook.alertStatus,
    disabled_until: hook.disabledUntil === null ? null : iso(hook.disabledUntil),
    url_variables: [],
    created_at: iso(hook.createdAt),
  };
}

/** GitLab's trigger names in hook logs (`issue_hooks`, …). */
const LOG_TRIGGER: Record<HookTrigger, string> = {
  push_events: 'push_hooks',
  tag_push_events: 'tag_push_hooks',
  issues_events: 'issue_hooks',
  confidential_issues_events: 'confidential_issue_hooks',
  merge_requests_events: 'merge_request_hooks',
  note_events: 'note_hooks',
  confidential_note_events: 'confidential_note_hooks',
  member_events: 'member_hooks',
};

export function presentDelivery(delivery: DeliveryView): Record<string, unknown> {
  return {
    id: delivery.id,
    trigger: LOG_TRIGGER[delivery.trigger],
    test: delivery.test,
    status: delivery.status,
    attempts: delivery.attempts,
    idempotency_key: delivery.idempotencyKey,
    event_uuid: delivery.eventUuid,
    request_headers: delivery.requestHeaders,
    request_data: delivery.requestData,
    // GitLab shows the status as text, or `internal error` when no answer came.
    response_status:
      delivery.responseStatus !== null
        ? String(delivery.responseStatus)
        : delivery.attemptedAt !== null
          ? 'internal error'
          : null,
    response_headers: delivery.responseHeaders,
    response_body: delivery.responseBody,
    internal_error_message: delivery.error,
    execution_duration: delivery.durationMs === null ? null : delivery.durationMs / 1000,
    created_at: iso(delivery.createdAt),
    attempted_at: delivery.attemptedAt === null ? null : iso(delivery.attemptedAt),
    next_attempt_at: delivery.nextAttemptAt === null ? null : iso(delivery.nextAttemptAt),
  };
}
