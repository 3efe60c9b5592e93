/**
 * Another process writing events (subscriptions tests): opens the database named on the command
 * line and records `count` events through the recorder, alternating between the given projects.
 * It knows nothing of the subscribers: they must hear of its writes through the database (NOTIFY
 * on PostgreSQL, the data version on SQLite). Prints the written ids as JSON.
 *
 * node --import tsx test/graphql/live-writer.ts <database-url> <authorId> <count> <projectId>...
 */
import 'reflect-metadata';
import { loadConfig } from '../../src/config.js';
import { createServices } from '../../src/services/container.js';
import { openStore } from '../../src/store/store.js';
import { writeEvent } from './live-support.js';

const [url, author, count, ...projects] = process.argv.slice(2);
const store = await openStore(url!);
const services = createServices(loadConfig({ databaseUrl: url!, port: 0 }, {}), store);
const ids: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const projectId = Number(projects[i % projects.length]);
  ids.push(
    await writeEvent(store, services, { projectId, authorId: Number(author), action: 'created' }),
  );
}
await store.close();
process.stdout.write(JSON.stringify(ids));
