/**
 * Validation of incoming guardrail requests against the wire contract. The one checker for the
 * in-process engine's callers and the HTTP service (`POST /v1/validate`); no Fastify here.
 */
import { ACTION_TYPES, GuardrailRequestSchema, type GuardrailRequest } from '@baton/manifest';

/** The outcome of {@link parseGuardrailRequest}. */
export type ParsedGuardrailRequest = { ok: true; request: GuardrailRequest } | { ok: false; message: string };

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/**
 * Validates a request body. On failure `message` names the first problem in words a caller can act
 * on, e.g. `action_type must be one of AGENT_INPUT, …; got "DELETE"`, `payload.name is required`,
 * `payload (for AGENT_INPUT) expected string, received number` or
 * `payload.function.arguments: must be a JSON string encoding an object`.
 */
export function parseGuardrailRequest(body: unknown): ParsedGuardrailRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: `request body must be a JSON object, got ${describeType(body)}` };
  }
  const actionType = (body as Record<string, unknown>)['action_type'];
  if (typeof actionType !== 'string' || !(ACTION_TYPES as readonly string[]).includes(actionType)) {
    const got =
      actionType === undefined
        ? 'it is missing'
        : typeof actionType === 'string'
          ? `got ${JSON.stringify(truncate(actionType))}`
          : `got ${describeType(actionType)}`;
    return { ok: false, message: `action_type must be one of ${ACTION_TYPES.join(', ')}; ${got}` };
  }
  const parsed = GuardrailRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, request: keepRawState(parsed.data, body as Record<string, unknown>) };
  const issue = parsed.error.issues[0] as Issue | undefined;
  if (!issue) return { ok: false, message: 'request does not match the /v1/validate schema' };
  return { ok: false, message: describeIssue(issue, actionType) };
}

/**
 * The schema's copy of a handoff `state` is rebuilt by assignment, which turns a `__proto__`
 * member into the copy's prototype: the member would vanish from inspection while the original
 * bytes still reach the next agent. The validated original (own properties, as JSON.parse made
 * them) is what the engine walks, exactly as an in-process caller's object is.
 */
function keepRawState(request: GuardrailRequest, body: Record<string, unknown>): GuardrailRequest {
  if (request.action_type !== 'AGENT_HANDOFF') return request;
  const state = (body['payload'] as Record<string, unknown>)['state'] as Record<string, unknown>;
  return { ...request, payload: { ...request.payload, state } };
}

function describeIssue(issue: Issue, actionType: string): string {
  const where = issue.path.length === 0 ? 'request' : issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue.keys ?? []).map((k) => JSON.stringify(truncate(k))).join(', ');
    return `${where} has unknown field(s) ${keys}`;
  }
  if (issue.code === 'invalid_type' && issue.message.includes('received undefined')) {
    return `${where} is required`;
  }
  if (issue.path[0] === 'payload' && issue.code === 'invalid_type') {
    return `${where} (for ${actionType}) ${issue.message.replace(/^Invalid input: /, '')}`;
  }
  return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function truncate(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
