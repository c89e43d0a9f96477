import type { RunResult, RunnerEvent } from '@baton/runner';

/** Options for {@link createStreamPrinter}. */
export interface StreamPrinterOptions {
  /** Every event as one JSON line on `stdout` (and a last `{"type":"done","result":…}` line). */
  json: boolean;
  /** Where the answer text (or the JSON lines) goes. */
  stdout: NodeJS.WritableStream;
  /** Where the short event lines go (text mode). */
  stderr: NodeJS.WritableStream;
}

/** Prints a streamed `baton run` as it happens. */
export interface StreamPrinter {
  /** The run's event listener (`RunRequest.onEvent`); waits for `stdout` to drain. */
  onEvent(event: RunnerEvent): void | Promise<void>;
  /** Prints the end of the run: the refusal if the answer was withheld, then the outcome. */
  finish(result: RunResult): Promise<void>;
}

function write(stream: NodeJS.WritableStream, text: string): void | Promise<void> {
  if (stream.write(text)) return undefined;
  return new Promise<void>((resolve) => stream.once('drain', () => resolve()));
}

/** One short line per event that is not answer text. */
function describe(event: Exclude<RunnerEvent, { type: 'text_delta' }>): string {
  switch (event.type) {
    case 'run_start':
      return `run ${event.run_id} started: ${event.agent_id}`;
    case 'run_end':
      return `run ${event.run_id} ${event.status}: ${event.agent_id}`;
    case 'handoff':
      return `handoff ${event.from_agent_id} → ${event.to_agent_id}`;
    case 'tool_start':
      return `tool ${event.name} (${event.call_id}) called by ${event.agent_id}`;
    case 'tool_end':
      return `tool ${event.name} (${event.call_id}) ${event.ok ? 'ok' : 'failed'}`;
    case 'guardrail_decision':
      return `guardrail ${event.action_type} ${event.decision} (${event.reason_code})`;
    case 'approval_required':
      return `run ${event.run_id} waits for approval until ${event.expires_at}: ${event.approvals.map((a) => `${a.id} (${a.tool_name})`).join(', ')}`;
    case 'approval_decided':
      return `approval ${event.id} ${event.approved ? 'approved' : 'rejected'}`;
    default:
      // A newer runner's event this printer does not know yet: its name is enough.
      return (event as { type: string }).type;
  }
}

/**
 * `baton run --stream`: answer text on stdout as the guardrail releases it, every other event as
 * a `baton run: …` line on stderr; with `--json`, every event as a JSON line on stdout.
 */
export function createStreamPrinter(options: StreamPrinterOptions): StreamPrinter {
  const { stdout, stderr } = options;
  // The answer text released per run: what the user saw of each.
  const released = new Map<string, string>();
  return {
    onEvent(event) {
      if (options.json) return write(stdout, `${JSON.stringify(event)}\n`);
      if (event.type === 'text_delta') {
        released.set(event.run_id, (released.get(event.run_id) ?? '') + event.text);
        return write(stdout, event.text);
      }
      return write(stderr, `baton run: ${describe(event)}\n`);
    },
    async finish(result) {
      if (options.json) {
        await write(stdout, `${JSON.stringify({ type: 'done', result })}\n`);
        return;
      }
      const shown = released.get(result.run_id) ?? '';
      // A withheld answer (the refusal) was never released as text: print it, on its own line.
      if (result.response !== null && result.response !== shown) await write(stdout, `${shown === '' ? '' : '\n'}${result.response}`);
      if (shown !== '' || result.response !== null) await write(stdout, '\n');
      await write(stderr, `baton run: ${result.status} (thread ${result.thread_id}, run ${result.run_id})\n`);
    },
  };
}
