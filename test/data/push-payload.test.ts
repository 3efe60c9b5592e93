import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitTitle, normalizePush, type PushCommit } from '../../src/domain/push-payload.js';
import { BLANK_SHA } from '../../src/domain/vocabulary.js';

const commit = (id: string, message: string): PushCommit => ({
  id,
  message,
  timestamp: '2026-01-02T10:00:00+00:00',
  url: `http://x/${id}`,
  author: { name: 'A', email: 'a@example.com' },
});

describe('push payloads as GitLab stores them', () => {
  it('commit_title: first line, stripped, at most 70 characters including ...', () => {
    assert.equal(commitTitle('Fix it\n\nbody'), 'Fix it');
    assert.equal(commitTitle('   padded title \r\nrest'), 'padded title');
    assert.equal(commitTitle('x'.repeat(70)), 'x'.repeat(70));
    assert.equal(commitTitle('y'.repeat(71)), 'y'.repeat(67) + '...');
    assert.equal(commitTitle('é'.repeat(80)), 'é'.repeat(67) + '...');
    assert.equal(commitTitle(''), null);
    assert.equal(commitTitle(undefined), null);
  });

  it('short ref, derived action, null from/to, newest 20 commits, title from the last', () => {
    const commits = Array.from({ length: 23 }, (_, i) => commit(String(i).padStart(40, 'a'), `C${i}`));
    const p = normalizePush({ ref: 'refs/heads/main', before: 'b'.repeat(40), after: 'c'.repeat(40), commitCount: 23, commits });
    assert.equal(p.action, 'pushed');
    assert.equal(p.ref, 'main');
    assert.equal(p.refType, 'branch');
    assert.equal(p.commits.length, 20);
    assert.equal(p.commits[0]!.message, 'C3');
    assert.equal(p.commitTitle, 'C22');
    assert.equal(p.commitCount, 23);

    const created = normalizePush({ ref: 'refs/tags/v1.0', before: BLANK_SHA, after: 'c'.repeat(40), commitCount: 0, commits: [] });
    assert.deepEqual([created.action, created.refType, created.ref, created.commitFrom, created.commitTo, created.commitTitle], ['created', 'tag', 'v1.0', null, 'c'.repeat(40), null]);

    const removed = normalizePush({ ref: 'refs/heads/old', before: 'd'.repeat(40), after: BLANK_SHA, commitCount: 0, commits: [] });
    assert.deepEqual([removed.action, removed.commitFrom, removed.commitTo], ['removed', 'd'.repeat(40), null]);
  });
});
