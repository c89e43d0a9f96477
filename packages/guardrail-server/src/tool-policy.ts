/**
 * Taint tracking per thread: once a thread has seen output from an untrusted source tool
 * (web fetch, e-mail, ...), calls to sink tools (send e-mail, HTTP post, ...) on that thread are
 * refused. State lives in a bounded LRU map keyed by thread_id; an evicted thread forgets its
 * taint, so size the map for the number of concurrently active threads.
 */

/** Options for {@link ThreadTaintTracker}. */
export interface ThreadTaintOptions {
  /** Tool names whose output is untrusted. */
  sourceTools: readonly string[];
  /** Tool names that must not run on a tainted thread. */
  sinkTools: readonly string[];
  /** Most threads remembered. Default 100,000. */
  maxThreads?: number;
}

/** Which untrusted source tainted a thread. */
export interface Taint {
  sourceTool: string;
}

export class ThreadTaintTracker {
  readonly #sources: Set<string>;
  readonly #sinks: Set<string>;
  readonly #max: number;
  readonly #threads = new Map<string, Taint>();

  constructor(options: ThreadTaintOptions) {
    this.#sources = new Set(options.sourceTools);
    this.#sinks = new Set(options.sinkTools);
    this.#max = options.maxThreads ?? 100_000;
  }

  /** Records a tool output on a thread; taints the thread when the tool is a source. */
  recordToolOutput(threadId: string, toolName: string): void {
    if (!this.#sources.has(toolName)) return;
    this.#threads.delete(threadId);
    this.#threads.set(threadId, { sourceTool: toolName });
    if (this.#threads.size > this.#max) {
      const oldest = this.#threads.keys().next().value;
      if (oldest !== undefined) this.#threads.delete(oldest);
    }
  }

  /** The taint that forbids calling `toolName` on this thread, or undefined when it is allowed. */
  checkToolCall(threadId: string, toolName: string): Taint | undefined {
    if (!this.#sinks.has(toolName)) return undefined;
    const taint = this.#threads.get(threadId);
    if (taint) {
      // refresh recency
      this.#threads.delete(threadId);
      this.#threads.set(threadId, taint);
    }
    return taint;
  }

  /** Number of tainted threads remembered. */
  get size(): number {
    return this.#threads.size;
  }
}
