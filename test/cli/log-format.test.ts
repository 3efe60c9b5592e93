/**
 * `serve`'s request log: one line per request with method, path, status, time and request id;
 * for people (`--log-format pretty`, the default on a terminal) or as JSON (the default otherwise,
 * and PULSEGATE_LOG_FORMAT=json). Tests are not a terminal, so pretty is asked for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serving } from './run.js';

describe('serve --log-format', () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pulsegate-logs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Sends one request and waits for its log line; its request id and status. */
  async function oneRequest(port: number, output: () => string, path: string) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    await response.arrayBuffer();
    const id = response.headers.get('x-request-id')!;
    assert.ok(id);
    // The line is written once the response has been sent: wait for it.
    for (let i = 0; i < 100 && !output().includes(id); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { id, status: response.status };
  }

  it('pretty: one plain line per request, with method, path, status, time and request id', async () => {
    const server = await serving([
      '--log-format',
      'pretty',
      '--port',
      '0',
      '--database-url',
      `sqlite:${join(dir, 'pretty.db')}`,
    ]);
    try {
      const stdout = () => server.output().stdout;
      assert.match(stdout(), /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at http:/m);
      const before = stdout().length;
      const { id, status } = await oneRequest(server.port, stdout, '/-/health?probe=1');
      assert.equal(status, 200);
      const lines = stdout().slice(before).trimEnd().split('\n');
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(
        lines[0]!,
        new RegExp(
          `^\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] INFO: GET /-/health\\?probe=1 200 \\d+\\.\\d ms \\[req ${id}\\]$`,
        ),
      );
      // Credentials in the query string stay out of this format too.
      const secret = await oneRequest(server.port, stdout, '/api/v4/user?private_token=s3cret');
      assert.ok(!stdout().includes('s3cret'));
      assert.match(
        stdout(),
        new RegExp(
          `GET /api/v4/user\\?private_token=\\[REDACTED\\] 401 \\d+\\.\\d ms \\[req ${secret.id}\\]`,
        ),
      );
    } finally {
      await server.stop();
    }
  });

  it('json (PULSEGATE_LOG_FORMAT=json): one JSON line per request, with the same facts', async () => {
    const server = await serving(
      ['--port', '0', '--database-url', `sqlite:${join(dir, 'json.db')}`],
      { PULSEGATE_LOG_FORMAT: 'json' },
    );
    try {
      const stdout = () => server.output().stdout;
      const before = stdout().length;
      const { id } = await oneRequest(server.port, stdout, '/-/health');
      const lines = stdout()
        .slice(before)
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.equal(lines.length, 1, JSON.stringify(lines));
      const [line] = lines as [
        {
          msg: string;
          reqId: string;
          req: { method: string; url: string };
          res: { statusCode: number };
          responseTime: number;
        },
      ];
      assert.equal(line.msg, 'request completed');
      assert.equal(line.reqId, id);
      assert.deepEqual(
        [line.req.method, line.req.url, line.res.statusCode],
        ['GET', '/-/health', 200],
      );
      assert.equal(typeof line.responseTime, 'number');
    } finally {
      await server.stop();
    }
  });
});
