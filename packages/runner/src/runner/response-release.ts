import type { GuardrailOutcome } from './guardrails.js';

/** Reason code when a later check would change text that was already released (fail closed). */
export const STREAM_RELEASED_TEXT_CHANGED = 'STREAM_RELEASED_TEXT_CHANGED';

/** Default longest run of text without a sentence or line end before it is released at a space. */
export const DEFAULT_MAX_SEGMENT_CHARS = 400;

/** Options for {@link ResponseRelease}. */
export interface ResponseReleaseOptions {
  /** The AGENT_RESPONSE check of `text` (the runner's guardrail checker; records the decision). */
  check(text: string): Promise<GuardrailOutcome<string>>;
  /** Hands cleared text on (a `text_delta` event); resolves when the consumer can take more. */
  emit(text: string): Promise<void>;
  /** Records a BLOCK this class decides itself (a check that would rewrite released text). */
  recordBlock(reasonCode: string): void;
  /** Text without a sentence or line end longer than this is released up to its last space. */
  maxSegmentChars?: number;
}

/** What the final check decided about the answer, as the runner records it. */
export type ReleaseVerdict = { decision: 'ALLOW' | 'MODIFY'; text: string } | { decision: 'BLOCK' };

// A sentence end followed by spaces, or line breaks: text after it is not part of the same token,
// so an address, a card number or a link is never cut in two by a segment boundary.
const BOUNDARY = /[.!?…。][)\]"'’”»]*[ \t]+|\n+/g;

/**
 * Releases one agent run's answer text through the AGENT_RESPONSE guardrail. Streamed text is
 * held until a segment boundary, then the whole text of the model turn up to that boundary is
 * checked again (so a redaction or a link split across chunks is seen whole) and only what the
 * check cleared is released. Released text is never taken back: a BLOCK, or a MODIFY that would
 * change text already released, ends the answer with the refusal. Without streaming, `finish`
 * is the one check of the whole answer.
 */
export class ResponseRelease {
  readonly #options: ResponseReleaseOptions;
  readonly #maxSegment: number;
  /** Raw model text of the current turn. */
  #turn = '';
  /** Characters of `#turn` the last check covered. */
  #checkedTo = 0;
  /** The last check, with the raw text it covered. */
  #last: { raw: string; outcome: GuardrailOutcome<string> } | undefined;
  /** Text released for the current turn (what the check cleared, after any MODIFY). */
  #released = '';
  /** The current turn's model response is done (more text opens a new turn). */
  #turnDone = false;
  #blocked = false;

  constructor(options: ResponseReleaseOptions) {
    this.#options = options;
    this.#maxSegment = options.maxSegmentChars ?? DEFAULT_MAX_SEGMENT_CHARS;
  }

  /** True once a check blocked: nothing more is released and the answer is the refusal. */
  get blocked(): boolean {
    return this.#blocked;
  }

  /** A chunk of the model's streamed text. */
  async delta(text: string): Promise<void> {
    if (this.#blocked || text === '') return;
    if (this.#turnDone) await this.endTurn();
    this.#turn += text;
    const end = this.#segmentEnd();
    if (end > this.#checkedTo) await this.#releaseTo(end);
  }

  /** The model's response ended; `final` when it called no tool (its text may be the answer). */
  async responseDone(final: boolean): Promise<void> {
    if (final) this.#turnDone = true;
    else await this.endTurn();
  }

  /**
   * A turn that went on to call tools: its text was the agent's narration. What is still held is
   * checked and released, then the next turn starts empty.
   */
  async endTurn(): Promise<void> {
    if (!this.#blocked && this.#turn.length > this.#checkedTo) await this.#releaseTo(this.#turn.length);
    this.#turn = '';
    this.#checkedTo = 0;
    this.#last = undefined;
    this.#released = '';
    this.#turnDone = false;
  }

  /**
   * The final check of the whole answer `text` (the Agents SDK's final output), releasing what
   * is still held. A check of exactly this text already made while streaming is not repeated.
   */
  async finish(text: string): Promise<ReleaseVerdict> {
    if (this.#blocked) return { decision: 'BLOCK' };
    // The answer is the last turn's text (released so far: a prefix of what this check clears).
    const outcome = this.#last?.raw === text ? this.#last.outcome : await this.#options.check(text);
    if (!(await this.#accept(outcome))) return { decision: 'BLOCK' };
    return { decision: outcome.decision === 'MODIFY' ? 'MODIFY' : 'ALLOW', text: outcome.payload };
  }

  /** Where the releasable text ends: the last segment boundary, or a space in an over-long run. */
  #segmentEnd(): number {
    const pending = this.#turn.slice(this.#checkedTo);
    let end = -1;
    BOUNDARY.lastIndex = 0;
    for (let m = BOUNDARY.exec(pending); m; m = BOUNDARY.exec(pending)) end = m.index + m[0].length;
    if (end < 0 && pending.length >= this.#maxSegment) {
      const space = Math.max(pending.lastIndexOf(' '), pending.lastIndexOf('\t'));
      // No space at all (a long token, a data URL): held whole until the turn ends.
      if (space > 0) end = space + 1;
    }
    return end < 0 ? this.#checkedTo : this.#checkedTo + end;
  }

  async #releaseTo(end: number): Promise<void> {
    const raw = this.#turn.slice(0, end);
    const outcome = await this.#options.check(raw);
    this.#checkedTo = end;
    this.#last = { raw, outcome };
    await this.#accept(outcome);
  }

  /** Releases what `outcome` cleared beyond what is out already; false (and blocked) otherwise. */
  async #accept(outcome: GuardrailOutcome<string>): Promise<boolean> {
    if (outcome.decision === 'BLOCK') {
      this.#blocked = true;
      return false;
    }
    if (!outcome.payload.startsWith(this.#released)) {
      // The check now redacts text that already left: it cannot be taken back, so stop here.
      this.#blocked = true;
      this.#options.recordBlock(STREAM_RELEASED_TEXT_CHANGED);
      return false;
    }
    const fresh = outcome.payload.slice(this.#released.length);
    this.#released = outcome.payload;
    if (fresh !== '') await this.#options.emit(fresh);
    return true;
  }
}
