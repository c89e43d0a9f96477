import type { ToolContext, ToolImplementation } from '@baton/runner';

/** What a tool call looked like from inside the tool (after the TOOL_CALL guardrail). */
export interface ObservedToolCall {
  agentId: string;
  depth: number;
  tool: string;
  /** The arguments the tool actually received (redacted when the guardrail said MODIFY). */
  args: Record<string, unknown>;
  outputChars: number;
}

/** Wraps each tool so the demo sees what it really received and returned. */
export function observeTools(
  tools: Record<string, ToolImplementation>,
  onCall: (call: ObservedToolCall) => void,
): Record<string, ToolImplementation> {
  return Object.fromEntries(
    Object.entries(tools).map(([name, fn]) => [
      name,
      async (args: Record<string, unknown>, ctx: ToolContext) => {
        const result: unknown = await fn(args, ctx);
        const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
        onCall({ agentId: ctx.agentId, depth: ctx.depth, tool: name, args, outputChars: text.length });
        return result;
      },
    ]),
  );
}
