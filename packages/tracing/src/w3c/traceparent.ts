// `traceparent` as W3C Trace Context Level 2 defines it, including the rules for versions newer
// than 00 (parse the 00 fields, ignore the rest) and the known trace flags.

/** Bit 0 of `trace-flags`: the caller may have recorded trace data. */
export const TRACE_FLAG_SAMPLED = 0x01;
/** Bit 1 of `trace-flags` (Level 2): at least the right-most 7 bytes of the trace id are random. */
export const TRACE_FLAG_RANDOM = 0x02;
/** The flags this version knows; the specification says to send every other bit as zero. */
export const KNOWN_TRACE_FLAGS = TRACE_FLAG_SAMPLED | TRACE_FLAG_RANDOM;

/** A `traceparent` that passed every rule. */
export interface ParsedTraceparent {
  /** The version as received (`00`, or a newer one parsed by the forward-compatibility rules). */
  version: string;
  /** 32 lower-case hex, not all zero. */
  traceId: string;
  /** The caller's span id: 16 lower-case hex, not all zero. */
  parentId: string;
  /** Known flags only (sampled, random); unknown bits are dropped as the specification says. */
  traceFlags: number;
}

/** Why a `traceparent` was ignored (the receiver then starts a new trace). */
export type TraceparentRejection =
  'empty' | 'duplicated' | 'too_short' | 'bad_version' | 'version_ff' | 'bad_format' | 'trace_id_zero' | 'parent_id_zero';

export type TraceparentParseResult = { ok: true; value: ParsedTraceparent } | { ok: false; reason: TraceparentRejection };

const HEX2 = /^[0-9a-f]{2}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** Length of a version-00 value: 2 + 1 + 32 + 1 + 16 + 1 + 2. */
const V00_LENGTH = 55;

/** Optional whitespace (RFC 9110 OWS: spaces and horizontal tabs) around a field value. */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value[start] === ' ' || value[start] === '\t')) start++;
  while (end > start && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Parses one `traceparent` field value. Version 00 must match its grammar exactly (no extra
 * fields); a newer version is read by the specification's forward-compatibility rules: at least
 * 55 characters, the 00 fields at their positions, and the flags either last or followed by `-`.
 * Version `ff`, upper-case hex and all-zero ids are invalid.
 */
export function parseTraceparent(raw: string): TraceparentParseResult {
  const value = trimOws(raw);
  if (value === '') return { ok: false, reason: 'empty' };
  const version = value.slice(0, 2);
  if (!HEX2.test(version) || value[2] !== '-') return { ok: false, reason: 'bad_version' };
  if (version === 'ff') return { ok: false, reason: 'version_ff' };
  if (value.length < V00_LENGTH) return { ok: false, reason: 'too_short' };
  let traceId: string;
  let parentId: string;
  let flags: string;
  if (version === '00') {
    const match = VERSION_00.exec(value);
    if (!match) return { ok: false, reason: 'bad_format' };
    [, traceId, parentId, flags] = match as unknown as [string, string, string, string];
  } else {
    traceId = value.slice(3, 35);
    parentId = value.slice(36, 52);
    flags = value.slice(53, 55);
    const shaped =
      HEX32.test(traceId) &&
      value[35] === '-' &&
      HEX16.test(parentId) &&
      value[52] === '-' &&
      HEX2.test(flags) &&
      (value.length === V00_LENGTH || value[V00_LENGTH] === '-');
    if (!shaped) return { ok: false, reason: 'bad_format' };
  }
  if (traceId === ZERO_TRACE_ID) return { ok: false, reason: 'trace_id_zero' };
  if (parentId === ZERO_SPAN_ID) return { ok: false, reason: 'parent_id_zero' };
  return { ok: true, value: { version, traceId, parentId, traceFlags: Number.parseInt(flags, 16) & KNOWN_TRACE_FLAGS } };
}

/** Whether `id` is a valid trace id (32 lower-case hex, not all zero). */
export function isValidTraceId(id: unknown): id is string {
  return typeof id === 'string' && HEX32.test(id) && id !== ZERO_TRACE_ID;
}

/** Whether `id` is a valid span id (16 lower-case hex, not all zero). */
export function isValidSpanId(id: unknown): id is string {
  return typeof id === 'string' && HEX16.test(id) && id !== ZERO_SPAN_ID;
}

/** A version-00 `traceparent`; only the known flags are written. */
export function formatTraceparent(traceId: string, spanId: string, traceFlags: number): string {
  return `00-${traceId}-${spanId}-${(traceFlags & KNOWN_TRACE_FLAGS).toString(16).padStart(2, '0')}`;
}
