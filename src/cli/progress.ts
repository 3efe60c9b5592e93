/**
 * Progress for long commands: one rewritten line on a terminal (records done, rate, time left),
 * nothing when stderr is not a terminal unless `--progress` asks for plain lines (logs, tests).
 * The summary line is always printed.
 */
import type { TransferProgress, TransferSummary } from '../data/transfer.js';

export type ProgressMode = 'tty' | 'lines' | 'off';

export function progressMode(forced: boolean, stream: NodeJS.WriteStream = process.stderr) {
  if (stream.isTTY) return 'tty';
  return forced ? 'lines' : 'off';
}

const number = new Intl.NumberFormat('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.ceil(seconds - m * 60)} s`;
}

/** Fraction done, from bytes (import) or records (export, seed), when a total is known. */
function fraction(p: TransferProgress): number | null {
  if (p.bytes !== undefined && p.totalBytes) return Math.min(1, p.bytes / p.totalBytes);
  if (p.totalRecords) return Math.min(1, p.records / p.totalRecords);
  return null;
}

export class ProgressReporter {
  private readonly started = performance.now();
  private last = -Infinity;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly mode: ProgressMode,
    private readonly stream: NodeJS.WritableStream = process.stderr,
  ) {}

  /** Throttled: a terminal redraws at most 5 times a second, plain lines once a second. */
  update = (p: TransferProgress): void => {
    if (this.mode === 'off') return;
    const now = performance.now();
    if (now - this.last < (this.mode === 'tty' ? 200 : 1000)) return;
    this.last = now;
    const elapsed = (now - this.started) / 1000;
    const rate = elapsed > 0 ? p.records / elapsed : 0;
    const done = fraction(p);
    const parts = [`${this.label}: ${number.format(p.records)} records`];
    parts.push(`${number.format(Math.round(rate))}/s`);
    if (done !== null) {
      parts.push(`${Math.floor(done * 100)}%`);
      if (done > 0) parts.push(`${duration((elapsed * (1 - done)) / done)} left`);
    }
    const text = parts.join(' · ');
    if (this.mode === 'tty') {
      this.stream.write(`\r\x1b[2K${text}`);
      this.drawn = true;
    } else {
      this.stream.write(`${text}\n`);
    }
  };

  /** Clears the terminal line before the summary is printed. */
  finish(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

/** `imported 3,050 records in 1.2 s (user 7, project 7, …)`; kinds with no records are left out. */
export function summaryLine(verb: string, summary: TransferSummary): string {
  const kinds = Object.entries(summary.counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind} ${number.format(n)}`)
    .join(', ');
  const rate = summary.seconds > 0 ? Math.round(summary.records / summary.seconds) : 0;
  return (
    `${verb} ${number.format(summary.records)} records in ${summary.seconds.toFixed(1)} s` +
    ` (${number.format(rate)} records/s)${kinds ? `: ${kinds}` : ''}`
  );
}
