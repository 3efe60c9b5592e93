#!/usr/bin/env node
// Prints pulsegate activity as it happens, one JSON line per event: a GraphQL subscription
// (`eventCreated`) over WebSocket with the graphql-ws client, protocol graphql-transport-ws.
//
//   node examples/subscribe.mjs [--url http://127.0.0.1:3000] [--token glpat-…]
//                               [--project acme/platform/api | --user alice] [--count N]
//
// Without --project or --user it follows what `events(scope: ALL)` lists for the token's user.
// Without a token it sees public activity only. --count N exits after N events.
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:3000' },
    token: { type: 'string' },
    project: { type: 'string' },
    user: { type: 'string' },
    count: { type: 'string' },
  },
});
const limit = values.count === undefined ? Infinity : Number(values.count);

const client = createClient({
  url: `${values.url.replace(/^http/, 'ws')}/api/graphql`,
  webSocketImpl: WebSocket,
  connectionParams: values.token ? { authorization: `Bearer ${values.token}` } : {},
  lazy: false,
});

const query = `subscription ($project: ID, $user: ID) {
  eventCreated(project: $project, user: $user) {
    databaseId actionName targetType targetTitle author { username } project { fullPath }
  }
}`;

let seen = 0;
const stop = client.subscribe(
  { query, variables: { project: values.project ?? null, user: values.user ?? null } },
  {
    next: ({ data, errors }) => {
      if (errors) {
        console.error(JSON.stringify(errors));
        process.exitCode = 1;
        return;
      }
      console.log(JSON.stringify(data.eventCreated));
      if (++seen >= limit) {
        stop();
        void client.dispose();
      }
    },
    error: (error) => {
      console.error(error instanceof Error ? error.message : JSON.stringify(error));
      process.exitCode = 1;
      void client.dispose();
    },
    complete: () => void client.dispose(),
  },
);
