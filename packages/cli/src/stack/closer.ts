import { StackCloseError } from './errors.js';

/**
 * Releases what the stack built, last built first. Every release runs even when an earlier one
 * fails (a stuck store must not keep the tracer from flushing); failures are collected into one
 * {@link StackCloseError}. Closing twice returns the first close's promise.
 */
export class Closer {
  readonly #parts: Array<{ label: string; close: () => unknown }> = [];
  #closing: Promise<void> | undefined;

  /** Registers a part to release; `label` names it in a close error. */
  add(label: string, close: () => unknown): void {
    if (this.#closing) throw new Error(`cannot add '${label}' to a closed stack`);
    this.#parts.push({ label, close });
  }

  close(): Promise<void> {
    this.#closing ??= this.#run();
    return this.#closing;
  }

  async #run(): Promise<void> {
    const errors: unknown[] = [];
    const labels: string[] = [];
    for (const part of [...this.#parts].reverse()) {
      try {
        await part.close();
      } catch (err) {
        errors.push(err);
        labels.push(part.label);
      }
    }
    if (errors.length > 0) throw new StackCloseError(errors, labels);
  }
}
