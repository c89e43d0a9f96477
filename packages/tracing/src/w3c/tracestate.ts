// `tracestate` as the current W3C Trace Context text defines it. The list is all-or-nothing: one
// member that breaks the grammar, or more than 32 members, discards the whole header (the
// `traceparent` is kept). OpenTelemetry's own TraceState instead drops single bad members and
// cuts the list at 32 silently; this one does not.
import type { TraceState } from '@opentelemetry/api';
import { InvalidTraceContextError } from '../errors.js';
import { trimOws } from './traceparent.js';

/** The most list members a `tracestate` may have. */
export const TRACESTATE_MAX_MEMBERS = 32;
/** Members longer than this go first when a `tracestate` must be shortened. */
const LONG_MEMBER = 128;

// key = ( lcalpha / DIGIT ) 0*255 ( keychar ); keychar = lcalpha / DIGIT / "_" / "-" / "*" / "/" / "@"
const KEY = /^[a-z0-9][a-z0-9_\-*/@]{0,255}$/;
// value = 0*255(chr) nblk-chr; chr = %x20 / nblk-chr; nblk-chr = %x21-2B / %x2D-3C / %x3E-7E
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** Whether `key` follows the `tracestate` key grammar. */
export function isValidTracestateKey(key: unknown): key is string {
  return typeof key === 'string' && KEY.test(key);
}

/** Whether `value` follows the `tracestate` value grammar. */
export function isValidTracestateValue(value: unknown): value is string {
  return typeof value === 'string' && VALUE.test(value);
}

/** Why a `tracestate` was discarded. */
export type TracestateRejection = 'bad_member' | 'bad_key' | 'bad_value' | 'too_many_members';

export type TracestateParseResult =
  { ok: true; value: W3CTraceState | undefined } | { ok: false; reason: TracestateRejection; detail: string };

/**
 * Parses a combined `tracestate` (several header fields joined with `,`, as RFC 9110 combines
 * them). Empty and whitespace-only members are allowed and skipped; OWS around members is
 * ignored, a value's leading spaces are kept. Any invalid member or more than 32 members
 * rejects the whole header. Of a key listed twice only the first (left-most, most recent) is
 * kept, which the specification allows. `value` is `undefined` when no member remained.
 */
export function parseTracestateList(combined: string): TracestateParseResult {
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  let members = 0;
  for (const part of combined.split(',')) {
    const member = trimOws(part);
    if (member === '') continue;
    members++;
    if (members > TRACESTATE_MAX_MEMBERS) {
      return { ok: false, reason: 'too_many_members', detail: `more than ${TRACESTATE_MAX_MEMBERS} list members` };
    }
    const eq = member.indexOf('=');
    if (eq === -1) return { ok: false, reason: 'bad_member', detail: `list member ${members} has no "="` };
    const key = member.slice(0, eq);
    const value = member.slice(eq + 1);
    if (!KEY.test(key)) return { ok: false, reason: 'bad_key', detail: `list member ${members} has an invalid key` };
    if (!VALUE.test(value)) return { ok: false, reason: 'bad_value', detail: `list member ${members} has an invalid value` };
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push([key, value]);
  }
  return { ok: true, value: entries.length === 0 ? undefined : new W3CTraceState(entries) };
}

/**
 * An immutable, always-valid `tracestate` list that plugs into OpenTelemetry as its `TraceState`.
 * `set` puts the key first (left-most) and, past 32 members, removes the right-most one, as the
 * specification's mutation rules say; an invalid key or value throws.
 */
export class W3CTraceState implements TraceState {
  private readonly entries: ReadonlyArray<readonly [string, string]>;

  /** Entries must already be valid; build from text with {@link parseTracestateList}. */
  constructor(entries: ReadonlyArray<readonly [string, string]> = []) {
    this.entries = entries;
  }

  set(key: string, value: string): W3CTraceState {
    if (!KEY.test(key))
      throw new InvalidTraceContextError(
        `tracestate key ${JSON.stringify(String(key).slice(0, 300))} does not follow the key grammar ([a-z0-9][a-z0-9_-*/@]{0,255})`,
      );
    if (!VALUE.test(value))
      throw new InvalidTraceContextError(
        `tracestate value for ${key} must be 1-256 printable ASCII characters without "," or "=", not ending in a space`,
      );
    const rest = this.entries.filter(([k]) => k !== key);
    const first: readonly [string, string] = [key, value];
    return new W3CTraceState([first, ...rest].slice(0, TRACESTATE_MAX_MEMBERS));
  }

  unset(key: string): W3CTraceState {
    return new W3CTraceState(this.entries.filter(([k]) => k !== key));
  }

  get(key: string): string | undefined {
    return this.entries.find(([k]) => k === key)?.[1];
  }

  /** Keys in order, left-most first. */
  keys(): string[] {
    return this.entries.map(([k]) => k);
  }

  get size(): number {
    return this.entries.length;
  }

  serialize(): string {
    return this.entries.map(([k, v]) => `${k}=${v}`).join(',');
  }

  /**
   * The list shortened to at most `maxLength` characters the way the specification says:
   * whole members only, members longer than 128 characters first, then from the right.
   */
  truncate(maxLength: number): W3CTraceState {
    let entries = [...this.entries];
    const length = () => entries.reduce((n, [k, v]) => n + k.length + 1 + v.length, 0) + Math.max(0, entries.length - 1);
    while (length() > maxLength) {
      let longest = -1;
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i]!;
        if (k.length + 1 + v.length > LONG_MEMBER) {
          longest = i;
          break;
        }
      }
      entries = entries.filter((_, i) => i !== (longest === -1 ? entries.length - 1 : longest));
    }
    return entries.length === this.entries.length ? this : new W3CTraceState(entries);
  }
}

/** Re-validates any OpenTelemetry `TraceState` (e.g. one a sampler built) through the grammar. */
export function toW3CTraceState(state: TraceState | undefined): W3CTraceState | undefined {
  if (state === undefined) return undefined;
  if (state instanceof W3CTraceState) return state.size === 0 ? undefined : state;
  const parsed = parseTracestateList(state.serialize());
  return parsed.ok ? parsed.value : undefined;
}
