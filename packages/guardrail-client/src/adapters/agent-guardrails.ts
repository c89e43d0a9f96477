import type { InputGuardrail, InputGuardrailFunctionArgs, OutputGuardrail } from '@openai/agents-core';
import type { GuardrailValidator } from '@baton/manifest';
import { outcomeInfo } from './outcome-info.js';
import { adapterChecker, decide } from './decide.js';
import { createRequestFactory, type GuardrailAdapterOptions } from './request-factory.js';

/** Options for {@link guardrailInputGuardrail}. */
export interface InputGuardrailAdapterOptions extends GuardrailAdapterOptions {
  /** Race the model call instead of blocking it (the SDK default). Default `false`: blocking. */
  runInParallel?: boolean;
  /** The SDK can't rewrite a run's input, so a MODIFY trips the guardrail unless this is `allow`. */
  onModify?: 'block' | 'allow';
}

/**
 * An SDK input guardrail that sends the run's user input as AGENT_INPUT. BLOCK (and, by default,
 * MODIFY) trips it, so `run()` rejects with `InputGuardrailTripwireTriggered` before the model is
 * called.
 */
export function guardrailInputGuardrail(validator: GuardrailValidator, options: InputGuardrailAdapterOptions = {}): InputGuardrail {
  const factory = createRequestFactory(options);
  const checker = adapterChecker(validator, options);
  return {
    name: options.name ?? 'baton_guardrail_input',
    runInParallel: options.runInParallel ?? false,
    async execute({ agent, input, context }) {
      const check = factory.build('AGENT_INPUT', userText(input), { agentName: agent.name, runContext: context });
      const response = await decide(checker, check);
      const tripped = response.decision === 'BLOCK' || (response.decision === 'MODIFY' && options.onModify !== 'allow');
      return { tripwireTriggered: tripped, outputInfo: outcomeInfo(response) };
    },
  };
}

/** Options for {@link guardrailOutputGuardrail}. */
export interface OutputGuardrailAdapterOptions extends GuardrailAdapterOptions {
  /** The SDK can't rewrite a final output, so a MODIFY trips the guardrail unless this is `allow`. */
  onModify?: 'block' | 'allow';
}

/**
 * An SDK output guardrail that sends the agent's final output as AGENT_RESPONSE (structured
 * output as its JSON text). BLOCK (and, by default, MODIFY) trips it.
 */
export function guardrailOutputGuardrail(validator: GuardrailValidator, options: OutputGuardrailAdapterOptions = {}): OutputGuardrail {
  const factory = createRequestFactory(options);
  const checker = adapterChecker(validator, options);
  return {
    name: options.name ?? 'baton_guardrail_output',
    async execute({ agent, agentOutput, context }) {
      const text = typeof agentOutput === 'string' ? agentOutput : JSON.stringify(agentOutput ?? null);
      const check = factory.build('AGENT_RESPONSE', text, { agentName: agent.name, runContext: context });
      const response = await decide(checker, check);
      const tripped = response.decision === 'BLOCK' || (response.decision === 'MODIFY' && options.onModify !== 'allow');
      return { tripwireTriggered: tripped, outputInfo: outcomeInfo(response) };
    },
  };
}

/**
 * The user-authored text of a run's input: the string itself, or every user message's text
 * (string content and `input_text` parts) joined by blank lines. Tool results in a replayed
 * history are not user input; guard them with the tool output guardrail.
 */
export function userText(input: InputGuardrailFunctionArgs['input']): string {
  if (typeof input === 'string') return input;
  const parts: string[] = [];
  for (const item of input) {
    if (!item || typeof item !== 'object' || !('role' in item) || item.role !== 'user') continue;
    const content = (item as { content?: unknown }).content;
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part && typeof part === 'object' && part.type === 'input_text' && typeof part.text === 'string') parts.push(part.text);
      }
    }
  }
  return parts.join('\n\n');
}
