import { keyedDigest } from '../keys.js';
import { userTextOf } from '../render.js';

/** What a model request looks like at the boundary: its input and any continuation ids. */
export interface BoundaryView {
  input: unknown;
  inputItems: number;
  previousResponseIdPresent: boolean;
  conversationIdPresent: boolean;
}

/** Reads a captured model request (an agents-core `ModelRequest`, or a bare input). */
export function viewModelRequest(request: unknown): BoundaryView {
  const rec = typeof request === 'object' && request !== null && !Array.isArray(request) && 'input' in request ? (request as Record<string, unknown>) : undefined;
  const input = rec ? rec.input : request;
  return {
    input,
    inputItems: Array.isArray(input) ? input.length : 1,
    previousResponseIdPresent: present(rec?.previousResponseId) || present(rec?.previous_response_id),
    conversationIdPresent: present(rec?.conversationId) || present(rec?.conversation_id) || present(rec?.conversation),
  };
}

/** The keyed digest of the input actually sent. */
export function inputDigest(auditKey: string | Uint8Array, view: BoundaryView): string {
  return keyedDigest(auditKey, view.input);
}

/** Whether the input is exactly the rendered packet (user text only, nothing else). */
export function inputIsPacket(view: BoundaryView, rendered: string): boolean {
  return userTextOf(view.input) === rendered;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}
