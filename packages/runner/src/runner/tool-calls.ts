import { createHash } from 'node:crypto';
import {
  AgentIdSchema,
  HANDOFF_PROTOCOL_NAME,
  HANDOFF_WIRE_NAME,
  type BoundaryCheck,
  type BoundaryDecisionRecorder,
  type BoundaryGuardrailCheck,
} from '@baton/manifest';
import { GuardrailDecisionRecordSchema, MAX_DELEGATED_TASK_DECISIONS, type GuardrailDecisionRecord } from '@baton/manifest/contracts';
import type { Context } from '@opentelemetry/api';
import { ToolNameError } from '../errors.js';
import { systemToolWireName } from './tool-names.js';
import type { JsonObject } from '../store/types.js';
import type { AgentRunState, CallState } from './call-state.js';
import { checkGuardrail, recordDecision } from './guardrails.js';
import { HANDOFF_DESCRIPTION, handoffParameters, parseHandoffArguments } from './handoff-tool.js';
import { recordTaint, threadTaint } from './taint.js';
import { endSpan, fetchWithTraceHeaders } from './tracing.js';
import type { ToolEventDetail } from './events.js';
import type { SystemTool, ToolContext, ToolImplementation } from './types.js';

/** The code of a TOOL_CALL MODIFY turned into a BLOCK because its arguments no longer fit the tool's schema. */
export const MODIFY_BREAKS_SCHEMA = 'GUARDRAIL_MODIFY_BREAKS_SCHEMA';

/** A tool as offered to one agent: wire name on the wire, protocol name everywhere else. */
export interface ToolSpec {
  wireName: string;
  protocolName: string;
  description: string;
  parameters: JsonObject;
  kind: 'user' | 'system' | 'handoff';
  implementation?: ToolImplementation;
  system?: SystemTool;
}

// One schema object per target list, so Ajv compiles it once (compiling costs milliseconds).
const handoffSchemas = new WeakMap<readonly string[], JsonObject>();
function handoffSchemaFor(targets: readonly string[]): JsonObject {
  let schema = handoffSchemas.get(targets);
  if (!schema) {
    schema = handoffParameters(targets);
    handoffSchemas.set(targets, schema);
  }
  return schema;
}

/**
 * Every tool the agent is offered: its manifest tools, its system tools and, with targets,
 * system::handoff. Two different tools under one wire name are a `ToolNameError`
 * (`TOOL_NAME_CONFLICT`): one never silently replaces the other.
 */
export function toolSpecsFor(call: CallState, run: AgentRunState): ToolSpec[] {
  const { manifest, deployment } = run.agent;
  const specs: ToolSpec[] = manifest.tools.map((t) => {
    const spec: ToolSpec = {
      wireName: t.function.name,
      protocolName: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters as JsonObject,
      kind: 'user',
    };
    const impl = call.tools[t.function.name];
    if (impl) spec.implementation = impl;
    return spec;
  });
  const systemTools: SystemTool[] = [];
  for (const name of deployment.system_tools) {
    const st = call.systemTools.get(name);
    if (st) systemTools.push(st);
  }
  // The same tool object both configured and requested is offered once; another tool under its name is a conflict.
  for (const st of call.requestSystemTools) if (!systemTools.includes(st)) systemTools.push(st);
  for (const st of systemTools) {
    specs.push({
      wireName: systemToolWireName(st.name),
      protocolName: st.name,
      description: st.description,
      parameters: st.parameters,
      kind: 'system',
      system: st,
    });
  }
  if (deployment.handoffs.length > 0) {
    specs.push({
      wireName: HANDOFF_WIRE_NAME,
      protocolName: HANDOFF_PROTOCOL_NAME,
      description: HANDOFF_DESCRIPTION,
      parameters: handoffSchemaFor(deployment.handoffs),
      kind: 'handoff',
    });
  }
  const seen = new Map<string, ToolSpec>();
  for (const spec of specs) {
    const other = seen.get(spec.wireName);
    if (other) {
      throw new ToolNameError(
        spec.protocolName,
        `agent ${manifest.id} is offered two tools named '${spec.wireName}' (a ${other.kind} tool and a ${spec.kind} tool); rename one, a tool never replaces another`,
        { code: 'TOOL_NAME_CONFLICT' },
      );
    }
    seen.set(spec.wireName, spec);
  }
  return specs;
}

async function appendItem(call: CallState, run: AgentRunState, item: JsonObject): Promise<void> {
  await call.writes.appendItems(call.threadId, run.runId, [item]);
}

/**
 * Executes one tool call the way the runner promises: arguments parsed and validated against the
 * tool's schema, TOOL_CALL guardrail, the implementation, TOOL_OUTPUT guardrail. Returns the
 * model-visible output; never throws for tool, model or guardrail problems.
 */
export async function executeToolCall(
  call: CallState,
  run: AgentRunState,
  spec: ToolSpec,
  rawArguments: string,
  callId: string,
): Promise<string> {
  // Taken before any await: the SDK starts a turn's calls in the model's order, so a retried
  // run that makes the same calls numbers them the same way.
  const ordinal = run.counters.toolCalls++;
  if (run.inputGate && !(await run.inputGate)) return 'Error: the input was blocked by a guardrail; no tool may run.';
  if (spec.kind === 'handoff') return recordHandoff(call, run, spec, rawArguments, callId);
  const agentId = run.agent.manifest.id;
  call.events.emit({ type: 'tool_start', run_id: run.runId, agent_id: agentId, call_id: callId, name: spec.protocolName });

  const scope = call.tracing.start(`execute_tool ${spec.protocolName}`, run.context, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': spec.protocolName,
    'gen_ai.tool.call.id': callId,
    'baton.agent.id': run.agent.manifest.id,
  });
  let errorCode: string | undefined;
  // What tool_end reports about a call that ran: argument names, output size, the tool's own detail.
  let ran: { argument_names: string[]; output_chars?: number; detail?: ToolEventDetail } | undefined;
  // Closed when the call ends: ToolContext.checkBoundary works only while the tool's call is open.
  const callOpen = { open: true };
  const fail = async (code: string, message: string): Promise<string> => {
    errorCode = code;
    await appendItem(call, run, { type: 'function_call_output', call_id: callId, name: spec.protocolName, output: message, error: code });
    return message;
  };
  try {
    let args: unknown;
    try {
      args = JSON.parse(rawArguments === '' ? '{}' : rawArguments);
    } catch {
      return await fail('TOOL_ARGUMENTS_INVALID', `Error: arguments for tool '${spec.protocolName}' are not valid JSON.`);
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return await fail('TOOL_ARGUMENTS_INVALID', `Error: arguments for tool '${spec.protocolName}' must be a JSON object.`);
    }
    const schemaProblem = call.validator.check(spec.parameters, args);
    if (schemaProblem)
      return await fail(
        'TOOL_ARGUMENTS_INVALID',
        `Error: invalid arguments for tool '${spec.protocolName}': ${schemaProblem}. The tool was not called.`,
      );

    const policy = await call.toolPolicy();
    if (policy.sinks.has(spec.protocolName)) {
      // Read from the store, where the taint lives: a restart or other threads' traffic cannot lose it.
      await call.writes.flush();
      let source: string | undefined;
      try {
        source = await threadTaint(call.store, call.threadId);
      } catch {
        return await fail(
          'TOOL_POLICY_VIOLATION',
          `Error: the call to tool '${spec.protocolName}' was blocked: the thread's taint could not be read, so a sink tool may not run.`,
        );
      }
      if (source !== undefined) {
        return await fail(
          'TOOL_POLICY_VIOLATION',
          `Error: the call to tool '${spec.protocolName}' was blocked: this thread has read untrusted content (${source}), and '${spec.protocolName}' sends data out.`,
        );
      }
    }

    const argumentsJson = JSON.stringify(args);
    const callCheck = await checkGuardrail(call.guard, {
      actionType: 'TOOL_CALL',
      payload: { id: callId, type: 'function', function: { name: spec.protocolName, arguments: argumentsJson } },
      agentId: run.agent.manifest.id,
      threadId: call.threadId,
      runId: run.runId,
      parent: scope.context,
      signal: call.signal,
      detail: { 'baton.tool.name': spec.protocolName },
      about: { call_id: callId, subject: spec.protocolName },
    });
    if (callCheck.decision === 'BLOCK') {
      return await fail(
        'GUARDRAIL_BLOCKED',
        `Error: the call to tool '${spec.protocolName}' was blocked by a guardrail (${callCheck.reasonCode}): ${callCheck.reasonMessage}`,
      );
    }
    let effectiveArgs = args as Record<string, unknown>;
    if (callCheck.decision === 'MODIFY') {
      if (callCheck.payload.function.name !== spec.protocolName || callCheck.payload.id !== callId) {
        return await fail(
          'GUARDRAIL_INVALID_MODIFY',
          `Error: the call to tool '${spec.protocolName}' was blocked: the guardrail changed which tool is called.`,
        );
      }
      effectiveArgs = JSON.parse(callCheck.payload.function.arguments) as Record<string, unknown>;
      const modifiedProblem = call.validator.check(spec.parameters, effectiveArgs);
      if (modifiedProblem) {
        // A redaction that breaks the tool's declared schema is a BLOCK, recorded as one: the
        // tool never runs with arguments it cannot take, and the model is told why.
        const recorded = {
          action_type: 'TOOL_CALL',
          decision: 'BLOCK',
          reason_code: MODIFY_BREAKS_SCHEMA,
          agent_id: run.agent.manifest.id,
        };
        call.guard.decisions.push(recorded);
        call.guard.onDecision?.(recorded, run.runId, { call_id: callId, subject: spec.protocolName });
        return await fail(
          MODIFY_BREAKS_SCHEMA,
          `Error: the call to tool '${spec.protocolName}' was blocked: the guardrail's modified arguments (${callCheck.reasonCode}) would break the tool's schema (${modifiedProblem}); the tool was not called. ` +
            'An argument the tool needs as is (e.g. an e-mail address) can be allowed in the guardrail policy (pii.addressing_fields).',
        );
      }
    }
    await appendItem(call, run, {
      type: 'function_call',
      call_id: callId,
      name: spec.protocolName,
      arguments: JSON.stringify(effectiveArgs),
    });

    const execute = spec.system?.execute ?? spec.implementation;
    if (!execute)
      return await fail('TOOL_NOT_IMPLEMENTED', `Error: tool '${spec.protocolName}' has no implementation registered with the runner.`);
    const headers = call.tracing.headers(scope.context);
    const ctx: ToolContext = {
      threadId: call.threadId,
      runId: run.runId,
      agentId: run.agent.manifest.id,
      depth: call.depth,
      signal: call.signal,
      auth: call.auth,
      fetch: fetchWithTraceHeaders(scope.context, call.fetch),
      ...headers,
      ...(run.approvedCalls?.has(callId) ? { approval: { id: run.approvedCalls.get(callId) as string, approved: true as const } } : {}),
      ...(call.idempotencyKey !== undefined
        ? { idempotencyKey: toolCallKey(call.idempotencyKey, run, ordinal, spec.protocolName, effectiveArgs) }
        : {}),
      checkBoundary: boundaryCheck(call, run, scope.context, callOpen),
      recordBoundaryDecisions: boundaryDecisionRecorder(call, run, scope.context, callOpen),
    };
    ran = { argument_names: declaredArgumentNames(spec.parameters, effectiveArgs) };
    let result: unknown;
    // Tainted before the source runs: whatever it returns (or throws, or the output guardrail
    // later decides), untrusted content may reach this thread from now on.
    if (policy.sources.has(spec.protocolName)) {
      await recordTaint(call.writes, {
        threadId: call.threadId,
        runId: run.runId,
        sourceTool: spec.protocolName,
        agentId: run.agent.manifest.id,
      });
    }
    // The call's records are committed before the tool runs (it may have side effects or read the store).
    await call.writes.flush();
    try {
      result = await execute(effectiveArgs, ctx);
    } catch (error) {
      return await fail(
        'TOOL_FAILED',
        `Error: tool '${spec.protocolName}' failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (spec.system?.terminal) {
      run.terminal ??= { callId, name: spec.protocolName, arguments: effectiveArgs };
    }

    const output = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
    ran.output_chars = output.length;
    const detail = toolEventDetail(call, spec, effectiveArgs, output, ctx);
    if (detail) ran.detail = detail;

    const outputCheck = await checkGuardrail(call.guard, {
      actionType: 'TOOL_OUTPUT',
      payload: { tool_call_id: callId, name: spec.protocolName, output },
      agentId: run.agent.manifest.id,
      threadId: call.threadId,
      runId: run.runId,
      parent: scope.context,
      signal: call.signal,
      detail: { 'baton.tool.name': spec.protocolName },
      about: { call_id: callId, subject: spec.protocolName },
    });
    let visible = output;
    if (outputCheck.decision === 'BLOCK') visible = `[tool output withheld by guardrail: ${outputCheck.reasonMessage}]`;
    else if (outputCheck.decision === 'MODIFY') visible = outputCheck.payload.output;
    await appendItem(call, run, {
      type: 'function_call_output',
      call_id: callId,
      name: spec.protocolName,
      output: visible,
      ...(outputCheck.decision === 'ALLOW' ? {} : { guardrail: outputCheck.decision }),
    });
    return visible;
  } finally {
    callOpen.open = false;
    endSpan(scope.span, errorCode ? { code: errorCode, message: `tool call ended with ${errorCode}` } : undefined);
    call.events.emit({
      type: 'tool_end',
      run_id: run.runId,
      agent_id: agentId,
      call_id: callId,
      name: spec.protocolName,
      ok: errorCode === undefined,
      ...ran,
    });
  }
}

/**
 * `ToolContext.checkBoundary`: a tool's boundary check (a delegation's subagent input and yield)
 * through the runner's one checker, recorded like every decision of the run, under the tool's span.
 */
function boundaryCheck(call: CallState, run: AgentRunState, parent: Context, callOpen: { open: boolean }): BoundaryGuardrailCheck {
  return async (given) => {
    // A check kept past its tool call has no span or run to be recorded in: refused, not sent.
    if (!callOpen.open) {
      return {
        decision: 'BLOCK',
        reasonCode: BOUNDARY_CHECK_INVALID,
        reasonMessage: 'the tool asked for a boundary check after its call ended; checks are made while the tool runs',
        payload: '',
        failed: false,
      };
    }
    // Read once into a plain object: what is validated is what is judged (no getter changes a
    // field between the two), and a field that throws when read is a malformed request.
    const check = snapshotBoundaryCheck(given);
    // A tool's bug must not reach the guardrail as a request it cannot judge (nor fail open on it).
    const problem = check === undefined ? 'its fields cannot be read' : boundaryCheckProblem(check);
    if (problem || check === undefined) {
      // Only what is known to be an id or a code is recorded: the rest may be anything the tool held.
      const valid = typeof check === 'object' && check !== null;
      const agentId = valid && AgentIdSchema.safeParse(check.agentId).success ? check.agentId : 'unknown';
      const actionType =
        valid && (check.actionType === 'AGENT_INPUT' || check.actionType === 'AGENT_RESPONSE') ? check.actionType : 'UNKNOWN';
      // Recorded like every decision (result, event, span, audit), on its own span under the tool call.
      await recordOnOwnSpan(
        call,
        run,
        parent,
        { action_type: actionType, decision: 'BLOCK', reason_code: BOUNDARY_CHECK_INVALID, agent_id: agentId },
        { 'baton.boundary': 'delegation' },
        { boundary: 'delegation' },
      );
      return {
        decision: 'BLOCK',
        reasonCode: BOUNDARY_CHECK_INVALID,
        reasonMessage: `the tool asked for a boundary check the runner cannot make: ${problem}`,
        payload: valid && typeof check.payload === 'string' ? check.payload : '',
        failed: false,
      };
    }
    const outcome = await checkGuardrail(call.guard, {
      actionType: check.actionType,
      payload: check.payload,
      agentId: check.agentId,
      threadId: call.threadId,
      runId: run.runId,
      parent,
      // The run's abort always applies; a tool may bound its own check further.
      signal: check.signal ? AbortSignal.any([call.signal, check.signal]) : call.signal,
      detail: { 'baton.boundary': check.boundary, 'baton.subagent': check.subject, 'baton.delegation.depth': String(check.depth) },
      about: { boundary: check.boundary, subject: check.subject, depth: check.depth },
    });
    return {
      decision: outcome.decision,
      reasonCode: outcome.reasonCode,
      reasonMessage: outcome.reasonMessage,
      payload: outcome.payload,
      failed: outcome.failed,
    };
  };
}

/**
 * `ToolContext.recordBoundaryDecisions`: boundary decisions a tool's subtask got elsewhere (a
 * queued delegation's worker checked them) recorded through the same `recordDecision` as
 * `checkBoundary`'s, each on its own span under the tool call. The report is validated here too
 * (any tool may call this): a malformed one is recorded as one BLOCK (`BOUNDARY_DECISIONS_INVALID`)
 * and answered false, so nothing it held is recorded as if a guardrail had said it.
 */
function boundaryDecisionRecorder(
  call: CallState,
  run: AgentRunState,
  parent: Context,
  callOpen: { open: boolean },
): BoundaryDecisionRecorder {
  return async (given) => {
    // Past its call there is no span or run to record into: refused (the tool fails closed).
    if (!callOpen.open) return false;
    const report = snapshotDecisionReport(given);
    const checked = report === undefined ? 'its fields cannot be read' : validDecisions(report);
    const subject =
      report !== undefined &&
      typeof report.subject === 'string' &&
      BOUNDARY_SUBJECT.test(report.subject) &&
      report.subject.length <= MAX_BOUNDARY_NAME
        ? report.subject
        : undefined;
    const depth = report !== undefined && Number.isSafeInteger(report.depth) && report.depth >= 0 ? report.depth : undefined;
    const about = { boundary: 'delegation' as const, ...(subject ? { subject } : {}), ...(depth !== undefined ? { depth } : {}) };
    const detail: Record<string, string> = {
      'baton.boundary': 'delegation',
      ...(subject ? { 'baton.subagent': subject } : {}),
      ...(depth !== undefined ? { 'baton.delegation.depth': String(depth) } : {}),
      // Decided by the worker's checker, not this runner's: the audit says so.
      'baton.decision.origin': 'dispatched',
    };
    const record = (decision: GuardrailDecisionRecord) => recordOnOwnSpan(call, run, parent, decision, detail, about);
    if (typeof checked === 'string' || report === undefined) {
      const agentId = subject && AgentIdSchema.safeParse(subject).success ? subject : 'unknown';
      await record({ action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: BOUNDARY_DECISIONS_INVALID, agent_id: agentId });
      return false;
    }
    for (const d of checked) await record(d);
    return true;
  };
}

/** Records a boundary decision through `recordDecision`, on its own `baton.guardrail` span under `parent`. */
async function recordOnOwnSpan(
  call: CallState,
  run: AgentRunState,
  parent: Context,
  decision: GuardrailDecisionRecord,
  detail: Record<string, string>,
  about: Parameters<typeof recordDecision>[1]['about'],
): Promise<void> {
  const scope = call.tracing.start(`baton.guardrail ${decision.action_type}`, parent, {
    'baton.guardrail.action_type': decision.action_type,
    'baton.agent.id': decision.agent_id,
    'baton.thread.id': call.threadId,
    ...detail,
  });
  await recordDecision(call.guard, { scope, threadId: call.threadId, runId: run.runId, decision, detail, about });
  endSpan(scope.span);
}

/** The reason code recorded (as a BLOCK) in place of a malformed `recordBoundaryDecisions` report. */
const BOUNDARY_DECISIONS_INVALID = 'BOUNDARY_DECISIONS_INVALID';

/** The report's fields and decisions copied once, or undefined when reading one throws. */
function snapshotDecisionReport(
  report: Parameters<BoundaryDecisionRecorder>[0],
): { decisions: unknown[]; boundary: unknown; subject: unknown; depth: number } | undefined {
  if (typeof report !== 'object' || report === null) return undefined;
  try {
    const { decisions, boundary, subject, depth } = report;
    // A structured clone: what is validated is what is recorded (no getters, no later mutation).
    // At most one entry past the bound is copied: enough to refuse a longer list, whatever its size.
    return {
      decisions: Array.isArray(decisions)
        ? (structuredClone(decisions.slice(0, MAX_DELEGATED_TASK_DECISIONS + 1)) as unknown[])
        : (decisions as never),
      boundary,
      subject,
      depth,
    };
  } catch {
    return undefined;
  }
}

/** The report's decisions as validated records, or what is wrong with the report. */
function validDecisions(report: {
  decisions: unknown;
  boundary: unknown;
  subject: unknown;
  depth: unknown;
}): GuardrailDecisionRecord[] | string {
  if (report.boundary !== 'delegation') return "boundary must be 'delegation'";
  if (typeof report.subject !== 'string' || report.subject.length > MAX_BOUNDARY_NAME || !BOUNDARY_SUBJECT.test(report.subject))
    return 'subject must be a skill name or an agent id';
  if (typeof report.depth !== 'number' || !Number.isSafeInteger(report.depth) || report.depth < 0)
    return 'depth must be a non-negative integer';
  if (!Array.isArray(report.decisions)) return 'decisions must be an array';
  if (report.decisions.length > MAX_DELEGATED_TASK_DECISIONS) return `at most ${MAX_DELEGATED_TASK_DECISIONS} decisions`;
  const out: GuardrailDecisionRecord[] = [];
  for (const [i, d] of report.decisions.entries()) {
    const parsed = GuardrailDecisionRecordSchema.safeParse(d);
    if (!parsed.success) return `decisions[${i}] is not a guardrail decision record`;
    out.push(parsed.data);
  }
  return out;
}

/** The reason code of a boundary check a tool asked for wrongly (recorded as a BLOCK). */
const BOUNDARY_CHECK_INVALID = 'BOUNDARY_CHECK_INVALID';
const MAX_BOUNDARY_NAME = 200;

/** The request's fields copied once (null/primitive as given), or undefined when reading one throws. */
function snapshotBoundaryCheck(check: BoundaryCheck): BoundaryCheck | undefined {
  if (typeof check !== 'object' || check === null) return check;
  try {
    const { actionType, payload, agentId, boundary, subject, depth, signal } = check;
    return { actionType, payload, agentId, boundary, subject, depth, ...(signal !== undefined ? { signal } : {}) };
  } catch {
    return undefined;
  }
}

/** A subject names a subagent (a skill name or an agent id); it is recorded in events and spans, so never free text. */
const BOUNDARY_SUBJECT = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$/;

/** What is wrong with a tool's boundary check request, or undefined. */
function boundaryCheckProblem(check: BoundaryCheck): string | undefined {
  if (typeof check !== 'object' || check === null) return 'not an object';
  if (check.actionType !== 'AGENT_INPUT' && check.actionType !== 'AGENT_RESPONSE')
    return 'actionType must be AGENT_INPUT or AGENT_RESPONSE';
  if (typeof check.payload !== 'string') return 'payload must be a string';
  if (!AgentIdSchema.safeParse(check.agentId).success) return 'agentId must be a reverse-DNS agent id';
  if (check.boundary !== 'delegation') return "boundary must be 'delegation'";
  if (
    typeof check.subject !== 'string' ||
    check.subject.length === 0 ||
    check.subject.length > MAX_BOUNDARY_NAME ||
    !BOUNDARY_SUBJECT.test(check.subject)
  )
    return `subject must be a name of 1 to ${MAX_BOUNDARY_NAME} letters, digits and _ . : @ / - (a skill name or an agent id)`;
  if (!Number.isSafeInteger(check.depth) || check.depth < 0) return 'depth must be a non-negative integer';
  if (check.signal !== undefined && !(check.signal instanceof AbortSignal)) return 'signal must be an AbortSignal';
  return undefined;
}

/**
 * A system tool's own report on a call (`SystemTool.eventDetail`), kept to flat strings, numbers
 * and booleans; a hook that throws or returns anything else reports nothing (and is logged).
 */
/**
 * The arguments' names the tool's schema declares (its `properties`), in the arguments' order. A
 * schema that admits other members lets the model write their names, so those are left out.
 */
function declaredArgumentNames(parameters: JsonObject, args: Record<string, unknown>): string[] {
  const properties = parameters['properties'];
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.keys(args).filter((name) => Object.hasOwn(properties, name));
}

/** Limits of a system tool's `tool_end.detail` (README "Runner events"). */
const MAX_DETAIL_ENTRIES = 32;
const MAX_DETAIL_STRING = 200;
const DETAIL_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

function toolEventDetail(
  call: CallState,
  spec: ToolSpec,
  args: Record<string, unknown>,
  output: string,
  ctx: ToolContext,
): ToolEventDetail | undefined {
  const describe = spec.system?.eventDetail;
  if (!describe || !call.events.active) return undefined;
  try {
    const raw: unknown = describe(args, output, ctx);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
    const detail: ToolEventDetail = Object.create(null) as ToolEventDetail;
    let kept = 0;
    for (const [k, v] of Object.entries(raw)) {
      // Names, codes, counts and flags: a free-form key, a long string (an output or argument
      // echoed back) or entries past the cap are dropped rather than trusted.
      if (kept >= MAX_DETAIL_ENTRIES) break;
      if (!DETAIL_KEY.test(k)) continue;
      if (
        (typeof v === 'string' && v.length <= MAX_DETAIL_STRING) ||
        typeof v === 'boolean' ||
        (typeof v === 'number' && Number.isFinite(v))
      ) {
        detail[k] = v;
        kept++;
      }
    }
    return kept > 0 ? { ...detail } : undefined;
  } catch (error) {
    call.logger.warn("a system tool's eventDetail failed; its tool_end event has no detail", {
      tool: spec.protocolName,
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/**
 * `<request key>#r<agent run>.call<n>.<digest of tool and arguments>`: a retry that makes the same
 * call at the same place gets the same key; a call with other arguments gets another one.
 */
function toolCallKey(base: string, run: AgentRunState, ordinal: number, toolName: string, args: Record<string, unknown>): string {
  const digest = createHash('sha256')
    .update(`${toolName}\n${JSON.stringify(args)}`)
    .digest('hex')
    .slice(0, 16);
  return `${base}#r${run.ordinal}.call${ordinal}.${digest}`;
}

async function recordHandoff(call: CallState, run: AgentRunState, spec: ToolSpec, rawArguments: string, callId: string): Promise<string> {
  const parsed = parseHandoffArguments(rawArguments, spec.parameters, call.validator);
  if (!parsed.ok) {
    await appendItem(call, run, {
      type: 'handoff',
      protocol: HANDOFF_PROTOCOL_NAME,
      call_id: callId,
      status: 'invalid',
      error: 'TOOL_ARGUMENTS_INVALID',
    });
    return parsed.message;
  }
  run.handoffRequests.set(callId, parsed.value);
  // Never sent back: the run stops after this turn.
  return 'handoff requested';
}
