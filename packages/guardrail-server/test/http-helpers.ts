import { randomUUID } from 'node:crypto';
import type { GuardrailRequest, GuardrailResponse } from '@baton/manifest';
import type { ServiceValidator } from '../src/http/index.js';

export const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
export const SPAN_ID = 'b7ad6b7169203331';
export const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;
/** Text that must never show up in a log line. */
export const SECRET_MARKER = 'payload-marker-7f3a9c';

export function toolCallRequest(args: Record<string, unknown> = { to: 'a@example.com', body: SECRET_MARKER }): GuardrailRequest {
  return {
    action_id: randomUUID(),
    action_type: 'TOOL_CALL',
    source_agent_id: 'io.baton.tests.sender',
    thread_id: 'thread_1',
    trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
    payload: { id: 'call_1', type: 'function', function: { name: 'send_email', arguments: JSON.stringify(args) } },
  };
}

export function inputRequest(text: string): GuardrailRequest {
  return {
    action_id: randomUUID(),
    action_type: 'AGENT_INPUT',
    source_agent_id: 'io.baton.tests.sender',
    thread_id: 'thread_1',
    trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
    payload: text,
  };
}

/**
 * A deterministic test validator (a stand-in for the detector engine, which has its own tests):
 * BLOCKs AGENT_INPUT containing "ignore previous", MODIFYs TOOL_CALL arguments containing "SSN"
 * by redacting the `body` key, ALLOWs everything else.
 */
export function testValidator(options: { delayMs?: number } = {}): ServiceValidator & { calls: number } {
  const v = {
    calls: 0,
    async validate(request: GuardrailRequest): Promise<GuardrailResponse> {
      v.calls++;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      return decideForTest(request);
    },
  };
  return v;
}

export function decideForTest(request: GuardrailRequest): GuardrailResponse {
  if (request.action_type === 'AGENT_INPUT' && request.payload.toLowerCase().includes('ignore previous')) {
    return { action_id: request.action_id, decision: 'BLOCK', reason_code: 'PROMPT_INJECTION', reason_message: 'direct prompt injection' };
  }
  if (request.action_type === 'TOOL_CALL' && request.payload.function.arguments.includes('SSN')) {
    const args = JSON.parse(request.payload.function.arguments) as Record<string, unknown>;
    args['body'] = '[REDACTED:SSN]';
    return {
      action_id: request.action_id,
      decision: 'MODIFY',
      reason_code: 'PII_REDACTED',
      reason_message: 'an SSN was redacted',
      modified_payload: { ...request.payload, function: { ...request.payload.function, arguments: JSON.stringify(args) } },
    };
  }
  return { action_id: request.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: 'no findings' };
}

/** Collects log lines written by the service. */
export function logSink(): { write(line: string): void; lines: string[]; records(): Array<Record<string, unknown>> } {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
    },
    records() {
      return lines
        .flatMap((l) => l.split('\n'))
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}
