import { tool, type FunctionTool, type RunContext } from '@openai/agents-core';
import type { JsonObject } from '../store/types.js';

/** Handles one call: gets the raw JSON arguments string and the call id, returns the model-visible output. */
export type RawToolHandler = (rawArguments: string, callId: string, signal: AbortSignal | undefined) => Promise<string>;

let fallbackCallCounter = 0;
const baseTools = new WeakMap<object, Map<string, FunctionTool>>();

/**
 * An SDK function tool whose wire name is exactly `wireName` (the SDK's `tool()` would rewrite
 * `-` to `_`) and whose arguments reach `handler` as the raw JSON string, so the runner does its
 * own parsing, schema validation and guardrail checks. Non-strict: the manifest's JSON Schema is
 * sent as is.
 */
export function createSdkFunctionTool(
  wireName: string,
  description: string,
  parameters: JsonObject,
  handler: RawToolHandler,
): FunctionTool {
  // The SDK tool definition depends only on name, description and schema: build it once per
  // schema object (manifests and handoff schemas are long-lived), not on every agent run.
  let byName = baseTools.get(parameters);
  if (!byName) baseTools.set(parameters, (byName = new Map()));
  const key = `${wireName}\u0000${description}`;
  let base = byName.get(key);
  if (!base) {
    base = tool({
      name: wireName,
      description,
      parameters: parameters as never,
      strict: false,
      execute: () => '',
    }) as unknown as FunctionTool;
    byName.set(key, base);
  }
  const invoke = async (
    _runContext: RunContext,
    input: string,
    details?: { toolCall?: { callId?: string }; signal?: AbortSignal },
  ): Promise<string> => {
    const callId = details?.toolCall?.callId ?? `call_local_${++fallbackCallCounter}`;
    return handler(input, callId, details?.signal);
  };
  return { ...base, name: wireName, invoke } as FunctionTool;
}
