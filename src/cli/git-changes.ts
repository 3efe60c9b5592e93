/**
 * What a push changed, asked of git itself from inside a repository's post-receive hook: for each
 * `oldrev newrev ref` line git hands the hook, the newest commits (at most 20, oldest first) and
 * how many there were, in the shape `POST /projects/:id/pushes` takes.
 */
import { spawn } from 'node:child_process';
import {
  MAX_AUTHOR_FIELD_LENGTH,
  MAX_COMMIT_MESSAGE_LENGTH,
  type PushChange,
  type ReportedCommit,
  isValidTimestamp,
} from '../domain/push-changes.js';
import { MAX_PUSH_COMMITS } from '../domain/push-payload.js';
import { BLANK_SHA } from '../domain/vocabulary.js';

export class GitError extends Error {}

/** Runs git with `args` (and `input` on stdin); its stdout, or a GitError with its stderr. */
export function git(args: string[], options: { cwd?: string; input?: string } = {}) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new GitError(`cannot run git: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else {
        const text = Buffer.concat(err).toString('utf8').trim();
        reject(new GitError(`git ${args[0]} failed (exit ${code}): ${text}`));
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** One line of the post-receive input. */
export interface RefUpdate {
  before: string;
  after: string;
  ref: string;
}

const LINE = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (\S.*)$/;

/** git's `oldrev newrev refname` lines; anything else is a broken invocation. */
export function parseRefUpdates(input: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const line of input.split('\n')) {
    if (line.trim() === '') continue;
    const m = LINE.exec(line.replace(/\r$/, ''));
    if (!m) throw new GitError(`unexpected input line (not "oldrev newrev ref"): ${line}`);
    if (m[1]!.length !== 40 || m[2]!.length !== 40) {
      throw new GitError('SHA-256 repositories are not supported (40-hex object ids only)');
    }
    updates.push({ before: m[1]!, after: m[2]!, ref: m[3]! });
  }
  return updates;
}

/** Branches and tags are reported; other refs (notes, review refs…) are not activity. */
export function isReportedRef(ref: string): boolean {
  return ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/');
}

/** At most `max` characters (code points). */
function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  const chars = Array.from(value);
  return chars.length <= max ? value : chars.slice(0, max).join('');
}

// Fields separated by NUL, commits too (-z): a commit message cannot hold a NUL.
const FORMAT = '--format=%H%x00%cI%x00%ct%x00%an%x00%ae%x00%B';
const FIELDS = 6;

function offsetTimestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** The newest `limit` commits of a revision range, oldest first. */
async function commitsOf(range: string[], limit: number): Promise<ReportedCommit[]> {
  const out = await git(['log', '-z', FORMAT, `--max-count=${limit}`, ...range, '--']);
  const fields = out.split('\0');
  const commits: ReportedCommit[] = [];
  for (let i = 0; i + FIELDS <= fields.length; i += FIELDS) {
    const [id, iso, unix, name, email, message] = fields.slice(i, i + FIELDS) as string[];
    commits.push({
      id: id!,
      // GitLab's commit timestamp is the committer date; an offset git stored oddly (old
      // imports) is given in UTC instead.
      timestamp: isValidTimestamp(iso!) ? iso! : offsetTimestamp(Number(unix)),
      message: cut(message!, MAX_COMMIT_MESSAGE_LENGTH),
      author: {
        name: cut(name!, MAX_AUTHOR_FIELD_LENGTH),
        email: cut(email!, MAX_AUTHOR_FIELD_LENGTH),
      },
    });
  }
  return commits.reverse();
}

async function count(range: string[]): Promise<number> {
  return Number((await git(['rev-list', '--count', ...range, '--'])).trim());
}

/**
 * The commits of one ref update, as GitLab counts them: none for a deletion; for a tag, the
 * commit it points to; for a new branch, the commits no other ref reaches; otherwise
 * `before..after`. Runs in the repository (the hook's working directory).
 */
export async function describeUpdate(update: RefUpdate): Promise<PushChange> {
  const { before, after, ref } = update;
  const change = { before, after, ref, commits: [] as ReportedCommit[], totalCommitsCount: 0 };
  if (after === BLANK_SHA) return change;
  if (ref.startsWith('refs/tags/')) {
    // An annotated tag's newrev is the tag object; its commit is what the tag points to.
    let commit: string;
    try {
      commit = (await git(['rev-parse', '--verify', '--quiet', `${after}^{commit}`])).trim();
    } catch {
      return change; // a tag of a tree or a blob: no commit
    }
    change.commits = await commitsOf([commit], 1);
    change.totalCommitsCount = change.commits.length;
    return change;
  }
  const range =
    before === BLANK_SHA
      ? // Every ref but this one: a ref name cannot hold glob characters (check-ref-format).
        [after, '--not', `--exclude=${ref}`, '--glob=refs/*']
      : [`${before}..${after}`];
  const total = await count(range);
  if (total === 0) return change;
  change.commits = await commitsOf(range, MAX_PUSH_COMMITS);
  // Two git calls: a ref moved in between (another push) must not make the report inconsistent.
  change.totalCommitsCount =
    change.commits.length < MAX_PUSH_COMMITS
      ? change.commits.length
      : Math.max(total, MAX_PUSH_COMMITS);
  return change;
}
