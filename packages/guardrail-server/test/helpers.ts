import type { GuardrailRequest } from '@baton/manifest';

let n = 0;
/** A deterministic, valid action_id for test request `i`. */
export function actionId(i = ++n): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

const base = {
  source_agent_id: 'io.baton.tests.agent',
  thread_id: 'thread-1',
  trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
};

export function agentInput(text: string, extra: Partial<GuardrailRequest> = {}): GuardrailRequest {
  return { ...base, action_id: actionId(), action_type: 'AGENT_INPUT', payload: text, ...extra } as GuardrailRequest;
}
export function agentResponse(text: string, thread = 'thread-1'): GuardrailRequest {
  return { ...base, thread_id: thread, action_id: actionId(), action_type: 'AGENT_RESPONSE', payload: text };
}
export function toolCall(name: string, args: unknown, thread = 'thread-1'): GuardrailRequest {
  return {
    ...base,
    thread_id: thread,
    action_id: actionId(),
    action_type: 'TOOL_CALL',
    payload: { id: 'call_1', type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } },
  };
}
export function toolOutput(name: string, output: string, thread = 'thread-1'): GuardrailRequest {
  return {
    ...base,
    thread_id: thread,
    action_id: actionId(),
    action_type: 'TOOL_OUTPUT',
    payload: { tool_call_id: 'call_1', name, output },
  };
}
export function handoff(input: string, state: Record<string, unknown>): GuardrailRequest {
  return {
    ...base,
    action_id: actionId(),
    action_type: 'AGENT_HANDOFF',
    payload: { target_agent_id: 'io.baton.tests.target', input, state },
  };
}

// Test credentials are assembled at run time so the source never holds a token-shaped literal.
export const FAKE = {
  githubToken: 'ghp_' + 'Zq8Lm3Xv7Rt2Np5Kw9Hy4Bc6Df1Gj0Qs' + 'Ue7T',
  awsKeyId: 'AKIA' + 'Q3ZRT7WXP2MN4KVB',
  slackBot: 'xoxb-' + '1234567890' + '-' + '9876543210987' + '-' + 'AbCdEfGhIjKlMnOpQrStUvWx',
  stripe: 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' + 'Xy',
  jwt:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9' +
    '.' +
    'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ' +
    '.' +
    'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  pemHeader: '-----BEGIN RSA ' + 'PRIVATE KEY-----',
};
