/**
 * The engine's one traversal of a request payload: every string - object keys as well as values -
 * becomes a field the detectors see, in a fixed order, and a MODIFY's edits (kept by field index,
 * never by path string) are written back in the same order. The same code runs in-process and
 * behind the HTTP service, so `__proto__`, `constructor` and `prototype` members are plain data
 * in both: they are read as own properties and written back with defineProperty.
 */
import type { GuardrailRequest } from '@baton/manifest';
import { child, type PathNode } from './payload-path.js';
import { jsonTokens, keyDigest, KeyCollisionError, rewriteJsonTokens, type JsonToken } from './redact.js';

/** Deepest nesting the traversal follows; deeper payloads are too complex to inspect. */
export const MAX_PAYLOAD_DEPTH = 512;

/** One string in the payload and where it is. */
export interface Field {
  /** Position in the traversal; edits are keyed by it. */
  index: number;
  text: string;
  /** Location: the value's, or for a key the member it names (undefined: the payload itself). */
  node: PathNode | undefined;
  /** True when `text` is an object member's name. */
  isKey: boolean;
  /** Human name for messages, e.g. "the tool call arguments". */
  where: string;
}

/** A payload's fields, plus what rebuilding it needs. */
export interface PayloadFields {
  fields: Field[];
  /** TOOL_CALL only: the string tokens of the arguments text, one per field. */
  tokens?: JsonToken[];
}

const OUTPUT = child(undefined, 'output');
const INPUT = child(undefined, 'input');
const STATE = child(undefined, 'state');
const ARGUMENTS = child(child(undefined, 'function'), 'arguments');

/** Lists every string of a request's payload. Throws RangeError past {@link MAX_PAYLOAD_DEPTH}. */
export function payloadFields(request: GuardrailRequest): PayloadFields {
  const fields: Field[] = [];
  const add = (text: string, node: PathNode | undefined, isKey: boolean, where: string): void => {
    fields.push({ index: fields.length, text, node, isKey, where });
  };
  switch (request.action_type) {
    case 'AGENT_INPUT':
      add(request.payload, undefined, false, 'the agent input');
      return { fields };
    case 'AGENT_RESPONSE':
      add(request.payload, undefined, false, 'the agent response');
      return { fields };
    case 'TOOL_OUTPUT':
      add(request.payload.output, OUTPUT, false, 'the tool output');
      return { fields };
    case 'TOOL_CALL': {
      const tokens = jsonTokens(request.payload.function.arguments, MAX_PAYLOAD_DEPTH, ARGUMENTS);
      for (const t of tokens) add(t.value, t.node, t.isKey, t.isKey ? 'a key of the tool call arguments' : 'the tool call arguments');
      return { fields, tokens };
    }
    case 'AGENT_HANDOFF': {
      add(request.payload.input, INPUT, false, 'the handoff input');
      walk(request.payload.state, STATE, 0, (text, node, isKey) =>
        add(text, node, isKey, isKey ? 'a key of the handoff state' : 'the handoff state'),
      );
      return { fields };
    }
  }
}

type Visit = (text: string, node: PathNode, isKey: boolean) => void;

function walk(value: unknown, node: PathNode, depth: number, visit: Visit): void {
  if (depth > MAX_PAYLOAD_DEPTH) throw new RangeError(`the payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
  if (typeof value === 'string') visit(value, node, false);
  else if (Array.isArray(value)) value.forEach((v, i) => walk(v, child(node, i), depth + 1, visit));
  else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const at = child(node, k);
      visit(k, at, true);
      walk((value as Record<string, unknown>)[k], at, depth + 1, visit);
    }
  }
}

/**
 * The payload with `edits[field.index]` applied (undefined keeps a string). Throws
 * {@link KeyCollisionError} when a renamed key would collide with another in its object.
 */
export function rebuildPayload(request: GuardrailRequest, parsed: PayloadFields, edits: ReadonlyArray<string | undefined>): unknown {
  switch (request.action_type) {
    case 'AGENT_INPUT':
    case 'AGENT_RESPONSE':
      return edits[0] ?? request.payload;
    case 'TOOL_OUTPUT':
      return { ...request.payload, output: edits[0] ?? request.payload.output };
    case 'TOOL_CALL': {
      const args = rewriteJsonTokens(request.payload.function.arguments, parsed.tokens ?? [], edits);
      return { ...request.payload, function: { ...request.payload.function, arguments: args } };
    }
    case 'AGENT_HANDOFF': {
      const counter = { next: 1 };
      return {
        ...request.payload,
        input: edits[0] ?? request.payload.input,
        state: rebuild(request.payload.state, edits, counter) as Record<string, unknown>,
      };
    }
  }
}

// Mirrors walk(): the same order, so counter.next is the index of each field as it is met.
function rebuild(value: unknown, edits: ReadonlyArray<string | undefined>, counter: { next: number }): unknown {
  if (typeof value === 'string') return edits[counter.next++] ?? value;
  if (Array.isArray(value)) return value.map((v) => rebuild(v, edits, counter));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  let renamed = false;
  const names: string[] = [];
  for (const k of Object.keys(value)) {
    const edited = edits[counter.next++];
    const name = edited ?? k;
    if (edited !== undefined && edited !== k) renamed = true;
    names.push(name);
    // defineProperty: `out[name] = v` would set the prototype for a "__proto__" member.
    Object.defineProperty(out, name, {
      value: rebuild((value as Record<string, unknown>)[k], edits, counter),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (renamed && new Set(names.map(keyDigest)).size !== names.length) throw new KeyCollisionError();
  return out;
}
