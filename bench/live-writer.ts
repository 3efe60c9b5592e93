/**
 * The benchmark's writer: another process appending events the way the recorder does (one
 * transaction per event through `events.append`), at a rate the benchmark sets over IPC
 * (`{ rate: events per second }`). It prints nothing; it exits when its parent disconnects.
 */
import { actionCode } from '../src/domain/vocabulary.js';
import { openStore } from '../src/store/store.js';

const url = process.argv[2];
if (!url) throw new Error('usage: live-writer <database-url>');
const store = await openStore(url, { migrate: false });
const members = await store.db
  .selectFrom('project_members')
  .select(['project_id', 'user_id'])
  .execute();
const ACTIONS = ['created', 'updated', 'closed', 'joined'] as const;

let rate = 0;
let written = 0;
let timer: NodeJS.Timeout | undefined;
let busy = false;

async function tick(started: number, startCount: number) {
  if (busy) return;
  busy = true;
  try {
    // Catch up to where the rate says we should be: steady on average, whatever the timer does.
    const due = Math.floor(((Date.now() - started) / 1000) * rate) - (written - startCount);
    for (let i = 0; i < due; i++) {
      const m = members[Math.floor(Math.random() * members.length)]!;
      await store.transaction((tx) =>
        tx.events.append({
          project_id: m.project_id,
          author_id: m.user_id,
          action: actionCode(ACTIONS[written % ACTIONS.length]!),
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: Date.now(),
        }),
      );
      written++;
    }
  } finally {
    busy = false;
  }
}

process.on('message', (message: { rate?: number; report?: boolean }) => {
  if (message.report) {
    process.send?.({ written });
    return;
  }
  rate = message.rate ?? 0;
  if (timer) clearInterval(timer);
  timer = undefined;
  if (rate > 0) {
    const started = Date.now();
    const startCount = written;
    timer = setInterval(() => void tick(started, startCount), 10);
  }
  process.send?.({ rate });
});
process.on('disconnect', () => {
  if (timer) clearInterval(timer);
  void store.close().then(() => process.exit(0));
});
process.send?.({ ready: true });
