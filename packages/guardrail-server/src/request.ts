/** Validation of incoming guardrail requests against the wire contract. */
import { GuardrailRequestSchema, type GuardrailRequest } from '@baton/manifest';

/** The outcome of {@link parseGuardrailRequest}. */
export type ParsedGuardrailRequest = { ok: true; request: GuardrailRequest } | { ok: false; message: string };

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(body)';
}

/**
 * Validates a request body. On failure `message` names the first problem and its path, e.g.
 * `payload.function.arguments: must be a JSON string encoding an object`.
 */
export function parseGuardrailRequest(body: unknown): ParsedGuardrailRequest {
  const parsed = GuardrailRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0]!;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
  return { ok: false, message: `${formatPath(issue.path)}: ${message}` };
}
