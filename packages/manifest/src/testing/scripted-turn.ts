// The one scripted-reply shape, shared by the in-memory scripted model and the scripted OpenAI
// server. Its vocabulary follows the offline model's scenarios (`message`, `call.arguments`).

/** One scripted tool call in a reply. */
export interface ScriptedToolCall {
  /** The tool's wire name (a handoff is the `system__handoff` tool). */
  name: string;
  /** An object (serialised for you) or the exact JSON string to send. */
  arguments: Record<string, unknown> | string;
  /** The call id; generated when omitted. */
  id?: string;
}

/** One scripted model reply: tool calls, a message, or both. */
export interface ScriptedTurn {
  /** Tool calls, in order. */
  toolCalls?: ScriptedToolCall[];
  /** An assistant message. */
  message?: string;
  /**
   * The message as a streamed model sends it, in these pieces (the scripted model streams one
   * `output_text_delta` per piece, the scripted server one SSE delta; `message`, when absent, is
   * their concatenation).
   */
  chunks?: string[];
  /** Fail instead of replying: the scripted model throws; the scripted server answers with this HTTP status. */
  error?: { status: number; message: string };
  /** Wait this long before replying, ms (the in-memory model honours the request's abort signal). */
  delayMs?: number;
}
