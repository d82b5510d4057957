/**
 * Progress of a long command: a single redrawn line (bar, rows/s, ETA) on a TTY, plain
 * periodic lines otherwise (logs, CI).
 */
export interface ProgressSnapshot {
  rows: number;
  /** Fraction done in [0, 1], when known. */
  fraction: number | null;
}

export class Progress {
  private readonly start = Date.now();
  private last = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly label: string,
    private readonly sample: () => ProgressSnapshot,
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly intervalMs = out.isTTY ? 250 : 5000,
  ) {}

  begin(): void {
    this.timer = setInterval(() => this.draw(false), this.intervalMs);
    this.timer.unref();
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.draw(true);
  }

  private draw(final: boolean): void {
    const { rows, fraction } = this.sample();
    if (!final && rows === this.last && !this.out.isTTY) return;
    this.last = rows;
    const secs = (Date.now() - this.start) / 1000;
    const rate = secs > 0 ? Math.round(rows / secs) : 0;
    const eta = fraction && fraction > 0 && fraction < 1 ? formatDuration((secs / fraction) * (1 - fraction)) : final ? '0s' : '?';
    const pct = fraction === null ? '' : `${(Math.min(1, fraction) * 100).toFixed(1)}% `;
    const text = `${this.label}: ${pct}${rows.toLocaleString('en-US')} rows, ${rate.toLocaleString('en-US')} rows/s, ETA ${eta}`;
    if (this.out.isTTY) {
      const width = 24;
      const filled = fraction === null ? 0 : Math.round(Math.min(1, fraction) * width);
      this.out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K${final ? '\n' : ''}`);
    } else {
      this.out.write(`${text}\n`);
    }
  }
}

export function formatDuration(secs: number): string {
  const s = Math.round(secs);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
