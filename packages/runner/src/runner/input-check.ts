import type { AgentRunState, CallState } from './call-state.js';
import type { RunnerContext } from './context.js';
import { checkGuardrail } from './guardrails.js';
import type { AgentRunOutcome } from './in-process-agent.js';
import { InputBlockedDuringRace, launchAgent } from './launch.js';
import type { PreparedHandoff } from './types.js';

/** A fresh agent run whose input has not been checked yet. */
export interface InputCheckOptions {
  /** The call it belongs to. */
  call: CallState;
  /** The run, already created. */
  run: AgentRunState;
  /** The input before the AGENT_INPUT check. */
  input: string;
  /** What a handoff gate prepared for this run, if one did. */
  prepared: PreparedHandoff | undefined;
}

/** AGENT_INPUT (blocking or racing), then the agent itself; `input` is what the agent was given. */
export async function checkInputAndLaunch(
  ctx: RunnerContext,
  options: InputCheckOptions,
): Promise<{ outcome: AgentRunOutcome; input: string }> {
  const { call, run, input, prepared } = options;
  const agentId = run.agent.manifest.id;
  const check = checkGuardrail(call.guard, {
    actionType: 'AGENT_INPUT',
    payload: input,
    agentId,
    threadId: call.threadId,
    runId: run.runId,
    parent: run.context,
    signal: call.signal,
  });
  const recordInput = (text: string) =>
    call.writes.appendItems(call.threadId, run.runId, [{ type: 'message', role: 'user', content: text }]);
  const blocked = (reasonCode: string, reason: string): AgentRunOutcome => ({
    kind: 'error',
    error: { code: 'GUARDRAIL_BLOCKED', message: `AGENT_INPUT for ${agentId} blocked by guardrail (${reasonCode}): ${reason}` },
  });

  if (run.agent.deployment.input_guardrail === 'racing' && run.agent.deployment.mode === 'in_process') {
    // The model call starts now with the unchecked input; its response is held (and no tool
    // runs) until the check allows it. BLOCK aborts the call and discards its output.
    const raceController = new AbortController();
    // Resolves only after the allowed input is recorded, so thread items stay in order.
    const gate = check
      .then(async (c) => {
        if (c.decision !== 'ALLOW') return false;
        await recordInput(input);
        return true;
      })
      .catch(() => false);
    void gate.then((ok) => {
      if (!ok) raceController.abort(new InputBlockedDuringRace('AGENT_INPUT', 'BLOCK', 'input blocked by guardrail'));
    });
    const running = launchAgent(ctx, {
      call,
      run: { ...run, inputGate: gate },
      input,
      prepared,
      signal: AbortSignal.any([call.signal, raceController.signal]),
    });
    const decided = await check;
    if (decided.decision === 'ALLOW' && (await gate)) return { outcome: await running, input };
    await running.catch(() => undefined);
    if (decided.decision === 'BLOCK') return { outcome: blocked(decided.reasonCode, decided.reasonMessage), input };
    // MODIFY: the raced call saw the unmodified input, so start over with the redacted one.
    await recordInput(decided.payload);
    return {
      outcome: await launchAgent(ctx, { call, run, input: decided.payload, prepared, signal: call.signal }),
      input: decided.payload,
    };
  }

  const decided = await check;
  if (decided.decision === 'BLOCK') return { outcome: blocked(decided.reasonCode, decided.reasonMessage), input };
  await recordInput(decided.payload);
  return { outcome: await launchAgent(ctx, { call, run, input: decided.payload, prepared, signal: call.signal }), input: decided.payload };
}
