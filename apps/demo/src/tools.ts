import { pathToFileURL } from 'node:url';
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

/** Imports a module exporting `tools` (examples/tools/support-tools.mjs) and checks its shape. */
export async function loadToolModule(file: string): Promise<Record<string, ToolImplementation>> {
  const mod = (await import(pathToFileURL(file).href)) as { tools?: unknown };
  if (!mod.tools || typeof mod.tools !== 'object') throw new Error(`${file}: must export \`tools\`, a record of functions`);
  const out: Record<string, ToolImplementation> = {};
  for (const [name, fn] of Object.entries(mod.tools as Record<string, unknown>)) {
    if (typeof fn !== 'function') throw new Error(`${file}: tools.${name} is not a function`);
    out[name] = fn as ToolImplementation;
  }
  return out;
}

/** Wraps each tool so the demo sees what it really received and returned. */
export function observeTools(tools: Record<string, ToolImplementation>, onCall: (call: ObservedToolCall) => void): Record<string, ToolImplementation> {
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
