import type { TimelineEvent, TimelineKind } from './report-model.js';

export interface ProgressOptions {
  /** Where lines go (default: stdout). */
  write?: (line: string) => void;
  /** Record events but print nothing. */
  quiet?: boolean;
  /** Colour the outcome words (default: when stdout is a TTY and NO_COLOR is unset). */
  color?: boolean;
  /** Clock in ms (default performance.now). */
  now?: () => number;
}

export type EventInput = Omit<TimelineEvent, 'atMs'>;

const COLORS: Record<string, string> = {
  ALLOW: '32',
  SUCCESS: '32',
  completed: '32',
  reconciled: '32',
  MODIFY: '33',
  BLOCK: '31',
  DENIED: '31',
  FAILURE: '31',
  failed: '31',
};

/**
 * The demo's live narration: one terminal line per boundary crossed and per decision, and the
 * same events kept for the HTML report's timeline.
 */
export class Progress {
  readonly events: TimelineEvent[] = [];
  readonly #write: (line: string) => void;
  readonly #quiet: boolean;
  readonly #color: boolean;
  readonly #now: () => number;
  readonly #start: number;

  constructor(options: ProgressOptions = {}) {
    this.#write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.#quiet = options.quiet === true;
    this.#color = options.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
    this.#now = options.now ?? (() => performance.now());
    this.#start = this.#now();
  }

  /** Milliseconds since the demo started. */
  elapsed(): number {
    return this.#now() - this.#start;
  }

  /** Records an event and prints its line. */
  event(input: EventInput): TimelineEvent {
    const event: TimelineEvent = { atMs: Math.round(this.elapsed()), ...input };
    this.events.push(event);
    if (!this.#quiet) this.#write(this.format(event));
    return event;
  }

  /** A plain line (headings, the summary): printed, not part of the timeline. */
  say(line: string): void {
    if (!this.#quiet) this.#write(line);
  }

  /** Printed even with --quiet. */
  always(line: string): void {
    this.#write(line);
  }

  format(e: TimelineEvent): string {
    const time = `+${(e.atMs / 1000).toFixed(3)}s`.padStart(8);
    const indent = '  '.repeat(e.depth);
    const outcome = e.outcome ? ` ${this.paint(e.outcome)}` : '';
    const detail = e.detail ? ` — ${e.detail}` : '';
    const findings = e.findings?.length ? ` [${e.findings.map((f) => `${f.detector}/${f.type}@${f.start}-${f.end}`).join(', ')}]` : '';
    return `${time} ${indent}${label(e.kind)} ${shortId(e.actor)}: ${e.title}${outcome}${detail}${findings}`;
  }

  paint(word: string): string {
    const code = COLORS[word];
    return this.#color && code ? `\u001b[${code}m${word}\u001b[0m` : word;
  }
}

function label(kind: TimelineKind): string {
  return kind.toUpperCase().padEnd(10);
}

/** `io.baton.examples.triage` → `triage`: agent ids are long and the prefix repeats. */
export function shortId(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot >= 0 && id.includes('.') && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(id) ? id.slice(dot + 1) : id;
}
