/**
 * Protocol names (how Baton records and validates a tool: `system::handoff`) versus wire names
 * (what the OpenAI API accepts: `^[a-zA-Z0-9_-]{1,64}$`). `::` maps to `__` (DESIGN.md decision 1).
 */
export const HANDOFF_PROTOCOL_NAME = 'system::handoff';
export const HANDOFF_WIRE_NAME = 'system__handoff';
export const DELEGATE_TASK_NAME = 'delegate_task';
export const YIELD_CONTROL_NAME = 'yield_control';
/** Tool names the runner owns; user tools may not take them. */
export const RESERVED_TOOL_NAMES: readonly string[] = [HANDOFF_WIRE_NAME, HANDOFF_PROTOCOL_NAME, DELEGATE_TASK_NAME, YIELD_CONTROL_NAME];

export const WIRE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Maps a protocol name to its wire name (`system::handoff` → `system__handoff`). */
export function toWireName(protocolName: string): string {
  return protocolName.replaceAll('::', '__');
}

/** Maps a wire name back to its protocol name (`system__handoff` → `system::handoff`). */
export function toProtocolName(wireName: string): string {
  return wireName === HANDOFF_WIRE_NAME ? HANDOFF_PROTOCOL_NAME : wireName.replace(/^([a-z0-9]+)__/, '$1::');
}

/**
 * Why `name` is not a valid wire name, or `undefined` if it is. Names the offending character
 * and its position, or says that it is empty or too long.
 */
export function wireNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'tool name is empty';
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (!/^[a-zA-Z0-9_-]$/.test(ch)) {
      const shown = /^[\x21-\x7e]$/.test(ch) ? `'${ch}'` : `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      return `tool name '${name}' contains ${shown} at position ${i + 1}; only A-Z, a-z, 0-9, '_' and '-' are allowed`;
    }
  }
  if (name.length > 64) return `tool name is ${name.length} characters long; the limit is 64`;
  return undefined;
}
