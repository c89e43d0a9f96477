import type { AgentInputItem } from '@openai/agents-core';
import { HANDOFF_PROTOCOL_NAME, HANDOFF_WIRE_NAME, toWireName } from '@baton/manifest';
import { RunnerError } from '../errors.js';
import type { RunRecord, ThreadItem, ThreadStore } from '../store/types.js';

/** baton.yml `agents.<id>.history`: how much of an agent's earlier turns each run replays. */
export interface HistoryWindow {
  /** Earlier turns (runs of this agent) replayed, newest kept; 0 turns history off. */
  max_turns?: number;
  /** Approximate token budget (4 characters ≈ 1 token) for the replayed turns; oldest whole turns go first. */
  max_tokens?: number;
}

/** Used when an agent's baton.yml entry has no `history`. */
export const DEFAULT_HISTORY_WINDOW: Readonly<Required<Pick<HistoryWindow, 'max_turns'>>> = { max_turns: 20 };

/** One earlier turn as replayed: the items of one earlier run of the agent, as the model will see them. */
export interface HistoryTurn {
  runId: string;
  /** Model input items (SDK protocol): user message, paired tool calls and results, the answer. */
  items: AgentInputItem[];
}

/** What a {@link HistorySummarizer} is given. */
export interface HistorySummaryRequest {
  threadId: string;
  agentId: string;
  /** The run about to start. */
  runId: string;
  /** Turns that fell out of the window, oldest first (never empty). */
  dropped: HistoryTurn[];
  /** Aborted when the run is cancelled or times out. */
  signal: AbortSignal;
}

/**
 * Summarises the turns that fell out of the window. The text returned is sent to the model as a
 * system message before the replayed turns; `null`/`undefined`/`''` sends nothing.
 */
export type HistorySummarizer = (request: HistorySummaryRequest) => Promise<string | null | undefined> | string | null | undefined;

/** The summariser threw or returned something other than a string: the run fails, nothing is sent. */
export class HistorySummaryError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('HISTORY_SUMMARY_FAILED', message, options);
    this.name = 'HistorySummaryError';
  }
}

/** Options of {@link loadAgentHistory}. */
export interface LoadHistoryOptions {
  store: ThreadStore;
  threadId: string;
  agentId: string;
  /** The run being started: its own items are never history. */
  runId: string;
  window: HistoryWindow | undefined;
  summarize?: HistorySummarizer;
  signal: AbortSignal;
}

/** Longest summary accepted from a summariser, in characters (a runaway summariser must not flood the prompt). */
export const MAX_SUMMARY_CHARS = 20_000;

const SUMMARY_PREFIX = 'Summary of earlier turns of this conversation (older than the replayed history):\n';

/**
 * The earlier turns of a thread as `agentId` may see them: the items of its own earlier runs
 * (the user turns addressed to it, or the packet it was handed, and what it did after), never
 * another agent's. Items are already guardrail-checked when stored. Tool calls replay only in
 * complete call/result pairs; handoff requests replay as a call with its outcome.
 */
export async function loadAgentHistory(options: LoadHistoryOptions): Promise<AgentInputItem[]> {
  const window: HistoryWindow = options.window ?? DEFAULT_HISTORY_WINDOW;
  const maxTurns = window.max_turns ?? DEFAULT_HISTORY_WINDOW.max_turns;
  if (maxTurns === 0 && !options.summarize) return [];
  const items = await options.store.listItems(options.threadId);
  // A thread with nothing but this run's items (e.g. a new one) needs no run lookup.
  if (items.every((i) => i.runId === options.runId)) return [];
  const runs = await options.store.listRuns(options.threadId);
  const turns = agentTurns(runs, items, options.agentId, options.runId);
  const { kept, dropped } = applyWindow(turns, maxTurns, window.max_tokens);
  const out: AgentInputItem[] = [];
  if (dropped.length > 0 && options.summarize) {
    const summary = await summarise(options, dropped);
    if (summary) out.push({ role: 'system', content: SUMMARY_PREFIX + summary });
  }
  for (const turn of kept) out.push(...turn.items);
  return out;
}

async function summarise(options: LoadHistoryOptions, dropped: HistoryTurn[]): Promise<string | undefined> {
  let value: unknown;
  try {
    value = await options.summarize?.({
      threadId: options.threadId,
      agentId: options.agentId,
      runId: options.runId,
      dropped,
      signal: options.signal,
    });
  } catch (error) {
    throw new HistorySummaryError(
      `history summariser failed for agent ${options.agentId}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value !== 'string')
    throw new HistorySummaryError(`history summariser for agent ${options.agentId} returned ${typeof value}, not a string`);
  if (value.length > MAX_SUMMARY_CHARS) {
    throw new HistorySummaryError(
      `history summariser for agent ${options.agentId} returned ${value.length} characters (at most ${MAX_SUMMARY_CHARS})`,
    );
  }
  return value;
}

/** Approximate tokens of a turn: 4 characters of its serialised items per token. */
export function approximateTokens(items: readonly AgentInputItem[]): number {
  return Math.ceil(JSON.stringify(items).length / 4);
}

/** Keeps the newest whole turns that fit both limits; a turn is never split (pairs stay whole). */
function applyWindow(
  turns: HistoryTurn[],
  maxTurns: number,
  maxTokens: number | undefined,
): { kept: HistoryTurn[]; dropped: HistoryTurn[] } {
  let start = Math.max(0, turns.length - maxTurns);
  if (maxTokens !== undefined) {
    let used = 0;
    let i = turns.length;
    while (i > start) {
      const cost = approximateTokens((turns[i - 1] as HistoryTurn).items);
      if (used + cost > maxTokens) break;
      used += cost;
      i--;
    }
    start = i;
  }
  return { kept: turns.slice(start), dropped: turns.slice(0, start) };
}

type Stored = Record<string, unknown>;

/** The agent's earlier runs, each turned into replayable items; runs that left nothing replayable are skipped. */
function agentTurns(runs: RunRecord[], items: ThreadItem[], agentId: string, currentRunId: string): HistoryTurn[] {
  const own = new Set(runs.filter((r) => r.agentId === agentId && r.id !== currentRunId).map((r) => r.id));
  const byRun = new Map<string, Stored[]>();
  const order: string[] = [];
  for (const entry of items) {
    if (!own.has(entry.runId)) continue;
    let list = byRun.get(entry.runId);
    if (!list) {
      list = [];
      byRun.set(entry.runId, list);
      order.push(entry.runId);
    }
    list.push(entry.item);
  }
  const turns: HistoryTurn[] = [];
  for (const runId of order) {
    const replay = toInputItems(byRun.get(runId) ?? []);
    if (replay.length > 0) turns.push({ runId, items: replay });
  }
  return turns;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? '');
}

/** One run's stored items as model input; unpaired tool calls and results are left out. */
function toInputItems(stored: Stored[]): AgentInputItem[] {
  const calls = new Set<string>();
  const outputs = new Set<string>();
  for (const s of stored) {
    if (s.type === 'function_call' && typeof s.call_id === 'string') calls.add(s.call_id);
    if (s.type === 'function_call_output' && typeof s.call_id === 'string') outputs.add(s.call_id);
  }
  const out: AgentInputItem[] = [];
  for (const s of stored) {
    if (s.type === 'message' && s.role === 'user') {
      out.push({ role: 'user', content: text(s.content) });
    } else if (s.type === 'message' && s.role === 'assistant') {
      out.push({ role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: text(s.content) }] });
    } else if (s.type === 'function_call' && typeof s.call_id === 'string' && outputs.has(s.call_id)) {
      out.push({
        type: 'function_call',
        callId: s.call_id,
        name: toWireName(String(s.name)),
        status: 'completed',
        arguments: text(s.arguments),
      });
    } else if (s.type === 'function_call_output' && typeof s.call_id === 'string' && calls.has(s.call_id)) {
      out.push({
        type: 'function_call_result',
        callId: s.call_id,
        name: toWireName(String(s.name)),
        status: 'completed',
        output: text(s.output),
      });
    } else if (s.type === 'handoff' && s.protocol === HANDOFF_PROTOCOL_NAME && typeof s.call_id === 'string') {
      out.push(...handoffPair(s, s.call_id));
    }
  }
  return out;
}

/** A handoff request replays as the call (target only: its input and state went to the target) and its outcome. */
function handoffPair(s: Stored, callId: string): AgentInputItem[] {
  const target = typeof s.target_agent_id === 'string' ? s.target_agent_id : undefined;
  let outcome: string;
  switch (s.status) {
    case 'honoured':
      outcome = `Handed off to ${target ?? 'another agent'}; that agent took over the conversation.`;
      break;
    case 'ignored':
      outcome = 'Ignored: only the first handoff of a turn is honoured.';
      break;
    case 'rejected':
      outcome = `The handoff to ${target ?? 'that agent'} was rejected (${typeof s.error === 'string' ? s.error : 'HANDOFF_REJECTED'}).`;
      break;
    default:
      outcome = 'Error: the handoff arguments were invalid; no handoff happened.';
  }
  return [
    {
      type: 'function_call',
      callId,
      name: HANDOFF_WIRE_NAME,
      status: 'completed',
      arguments: JSON.stringify(target ? { target_agent_id: target } : {}),
    },
    { type: 'function_call_result', callId, name: HANDOFF_WIRE_NAME, status: 'completed', output: outcome },
  ];
}
