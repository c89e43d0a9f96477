import {
  defineToolInputGuardrail,
  defineToolOutputGuardrail,
  ToolGuardrailFunctionOutputFactory,
  type ToolInputGuardrailDefinition,
  type ToolOutputGuardrailDefinition,
} from '@openai/agents-core';
import { toProtocolName, type GuardrailValidator, type ToolCallPayload } from '@baton/manifest';
import { outcomeInfo, refusalMessage } from './outcome-info.js';
import { adapterChecker, decide } from './decide.js';
import { createRequestFactory, type GuardrailAdapterOptions } from './request-factory.js';

/** Options for the tool guardrail adapters. */
export interface ToolGuardrailAdapterOptions extends GuardrailAdapterOptions {
  /** On BLOCK: replace the call/output with a message (default) or throw a tripwire. */
  behavior?: 'rejectContent' | 'throwException';
}

/**
 * An SDK tool input guardrail that sends the call as TOOL_CALL. BLOCK rejects the call with the
 * reason. A MODIFY can't be applied here (SDK tool guardrails only allow, reject or throw), so it
 * is rejected too; use {@link withGuardrailedArguments} to run the tool with redacted arguments.
 */
export function guardrailToolInputGuardrail(
  validator: GuardrailValidator,
  options: ToolGuardrailAdapterOptions = {},
): ToolInputGuardrailDefinition {
  const factory = createRequestFactory(options);
  const checker = adapterChecker(validator, options);
  return defineToolInputGuardrail({
    name: options.name ?? 'baton_guardrail_tool_input',
    async run({ agent, context, toolCall }) {
      const payload: ToolCallPayload = {
        id: toolCall.callId,
        type: 'function',
        function: { name: toProtocolName(toolCall.name), arguments: toolCall.arguments },
      };
      const check = factory.build('TOOL_CALL', payload, { agentName: agent.name, runContext: context });
      const response = await decide(checker, check);
      const info = outcomeInfo(response);
      if (response.decision === 'ALLOW') return ToolGuardrailFunctionOutputFactory.allow(info);
      if (options.behavior === 'throwException') return ToolGuardrailFunctionOutputFactory.throwException(info);
      const message =
        response.decision === 'MODIFY'
          ? `Tool call blocked: the guardrail asked to modify its arguments (${response.reason_code}), which a tool input guardrail cannot apply; wrap the tool with withGuardrailedArguments to run it with the redacted arguments.`
          : refusalMessage('Tool call', response);
      return ToolGuardrailFunctionOutputFactory.rejectContent(message, info);
    },
  });
}

/**
 * An SDK tool output guardrail that sends the tool's result as TOOL_OUTPUT before the model sees
 * it. BLOCK replaces the output with the reason; MODIFY replaces it with the redacted output.
 */
export function guardrailToolOutputGuardrail(
  validator: GuardrailValidator,
  options: ToolGuardrailAdapterOptions = {},
): ToolOutputGuardrailDefinition {
  const factory = createRequestFactory(options);
  const checker = adapterChecker(validator, options);
  return defineToolOutputGuardrail({
    name: options.name ?? 'baton_guardrail_tool_output',
    async run({ agent, context, toolCall, output }) {
      const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
      const payload = { tool_call_id: toolCall.callId, name: toProtocolName(toolCall.name), output: text };
      const check = factory.build('TOOL_OUTPUT', payload, { agentName: agent.name, runContext: context });
      const response = await decide(checker, check);
      const info = outcomeInfo(response);
      if (response.decision === 'ALLOW') return ToolGuardrailFunctionOutputFactory.allow(info);
      if (response.decision === 'MODIFY') {
        // The validator checked modified_payload against the TOOL_OUTPUT schema; the SDK's
        // rejectContent is its one way to replace an output, so the redacted text goes there.
        const modified = response.modified_payload as { output: string };
        return ToolGuardrailFunctionOutputFactory.rejectContent(modified.output, info);
      }
      if (options.behavior === 'throwException') return ToolGuardrailFunctionOutputFactory.throwException(info);
      return ToolGuardrailFunctionOutputFactory.rejectContent(refusalMessage('Tool output', response), info);
    },
  });
}
