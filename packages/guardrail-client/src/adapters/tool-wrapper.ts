import { randomUUID } from 'node:crypto';
import type { FunctionTool } from '@openai/agents-core';
import { toProtocolName, type GuardrailValidator, type ToolCallPayload } from '@baton/manifest';
import { refusalMessage } from './outcome-info.js';
import { adapterChecker, decide } from './decide.js';
import { createRequestFactory, type GuardrailAdapterOptions } from './request-factory.js';

/** Options for {@link withGuardrailedArguments}. */
export interface GuardedToolOptions extends GuardrailAdapterOptions {
  /** Name of the agent that owns the tool (the SDK does not pass it to `invoke`). */
  agentName?: string;
}

/**
 * Wraps a function tool so every call is checked as TOOL_CALL first: ALLOW runs it as asked,
 * MODIFY runs it with the guardrail's redacted arguments, BLOCK doesn't run it and returns the
 * reason to the model as the tool's output. This is how MODIFY reaches a tool: the SDK's own
 * tool guardrails can only allow, reject or throw.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tool, whatever its context, parameters and result
export function withGuardrailedArguments<T extends FunctionTool<any, any, any>>(
  tool: T,
  validator: GuardrailValidator,
  options: GuardedToolOptions = {},
): T {
  const factory = createRequestFactory(options);
  const checker = adapterChecker(validator, options);
  const generateId = options.generateId ?? randomUUID;
  const invoke: T['invoke'] = async (runContext, input, details) => {
    const callId = details?.toolCall?.callId ?? `call_${generateId()}`;
    const payload: ToolCallPayload = {
      id: callId,
      type: 'function',
      function: { name: toProtocolName(tool.name), arguments: input },
    };
    const check = factory.build('TOOL_CALL', payload, { ...(options.agentName ? { agentName: options.agentName } : {}), runContext });
    const response = await decide(checker, { ...check, ...(details?.signal ? { signal: details.signal } : {}) });
    if (response.decision === 'BLOCK') return refusalMessage('Tool call', response);
    if (response.decision === 'ALLOW') return tool.invoke(runContext, input, details);
    const modifiedArgs = (response.modified_payload as ToolCallPayload).function.arguments;
    const modifiedDetails = details?.toolCall ? { ...details, toolCall: { ...details.toolCall, arguments: modifiedArgs } } : details;
    return tool.invoke(runContext, modifiedArgs, modifiedDetails);
  };
  return { ...tool, invoke };
}
