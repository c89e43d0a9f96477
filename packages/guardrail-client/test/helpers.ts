import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { scriptedGuardrail } from '@baton/manifest/testing';

export const TRACE = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' };

export function toolCall(args: Record<string, unknown>, name = 'send_email'): Extract<GuardrailRequest, { action_type: 'TOOL_CALL' }> {
  return {
    action_id: randomUUID(),
    action_type: 'TOOL_CALL',
    source_agent_id: 'io.baton.tests.sender',
    thread_id: 'thread_1',
    trace: TRACE,
    payload: { id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } },
  };
}

export function toolOutput(output: string): GuardrailRequest {
  return { ...toolCall({}), action_type: 'TOOL_OUTPUT', payload: { tool_call_id: 'call_1', name: 'read_inbox', output } };
}

/**
 * A deterministic validator for these tests (a stand-in for the detector engine, which is
 * tested in @baton/guardrail-server): text containing BLOCKME is BLOCK; TOOL_CALL arguments
 * and TOOL_OUTPUT text with a 3-2-4 digit SSN get it replaced (MODIFY); the rest ALLOW.
 * Records every request it sees.
 */
export function recordingValidator(): GuardrailValidator & { requests: GuardrailRequest[] } {
  const scripted = scriptedGuardrail(decide);
  return { requests: scripted.requests, validate: (request, options) => scripted.validator.validate(request, options) };
}

const SSN = /\b\d{3}-\d{2}-\d{4}\b/g;
const HAS_SSN = /\b\d{3}-\d{2}-\d{4}\b/;

export function decide(request: GuardrailRequest): GuardrailResponse {
  const text = JSON.stringify(request.payload);
  const base = { action_id: request.action_id };
  if (text.includes('BLOCKME')) return { ...base, decision: 'BLOCK', reason_code: 'TEST_BLOCK', reason_message: 'test marker found' };
  if (request.action_type === 'TOOL_CALL' && HAS_SSN.test(request.payload.function.arguments)) {
    const args = JSON.parse(request.payload.function.arguments) as Record<string, unknown>;
    for (const [k, v] of Object.entries(args)) if (typeof v === 'string') args[k] = v.replace(SSN, '[REDACTED:SSN]');
    return {
      ...base,
      decision: 'MODIFY',
      reason_code: 'PII_REDACTED',
      reason_message: 'an SSN was redacted',
      modified_payload: { ...request.payload, function: { ...request.payload.function, arguments: JSON.stringify(args) } },
    };
  }
  if (request.action_type === 'TOOL_OUTPUT' && HAS_SSN.test(request.payload.output)) {
    return {
      ...base,
      decision: 'MODIFY',
      reason_code: 'PII_REDACTED',
      reason_message: 'an SSN was redacted',
      modified_payload: { ...request.payload, output: request.payload.output.replace(SSN, '[REDACTED:SSN]') },
    };
  }
  return { ...base, decision: 'ALLOW', reason_code: 'OK', reason_message: 'no findings' };
}

/** A raw HTTP server on port 0 whose answers a test scripts (for broken-service cases). */
export async function rawServer(
  handle: (body: string, headers: IncomingHttpHeaders, res: ServerResponse) => void,
): Promise<{ url: string; close(): Promise<void>; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(Buffer.concat(chunks).toString('utf8'), req.headers, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bind one, then release it. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
