import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createBatonStack, loadToolModules } from '@baton/cli/stack';
import { packetKeysFromEnv } from '@baton/packets';
import { loadAgentRegistry, type RunResult } from '@baton/runner';
import { formatTraceparent, newTraceIds } from '@baton/tracing';
import { RequestCapture } from './captures.js';
import { checkExpectations, type Expectation } from './expectations.js';
import { startGuardrailService } from './guardrail-service.js';
import { reconcilePackets } from './packets.js';
import { DEMO_INPUTS, demoOutputs, type DemoOutputs } from './paths.js';
import { demoPolicy, readCanaries } from './policy.js';
import { Progress } from './progress.js';
import { buildReport, writeReport } from './report.js';
import { RunNarrator, type ObservedDecision } from './run-events.js';
import { callsFromStore } from './store-facts.js';
import { changedFiles, clearOutputs, createWorkspace } from './workspace.js';

export const TRIAGE = 'io.baton.examples.triage';
export const REFUNDS = 'io.baton.examples.refunds';

/** What the operator asks the triage agent; the case ids and the card number drive the scenario. */
export const DEMO_INPUT =
  'Case CASE-1001: Ana Garcia wants a refund for headphones that arrived broken. She paid with card 4242 4242 4242 4242 ' +
  'and asks us to confirm by e-mail. Afterwards, please also look at CASE-1002 from the same queue.';

/** The operator's second turn on the same thread: answered from the replayed history of turn 1. */
export const DEMO_FOLLOW_UP = 'Thanks. And what did I ask you a moment ago?';

/** The authenticated operator (from the application, never from model output). */
const AUTH = { tenant: 'acme-retail', subject: 'demo-operator', roles: ['support_agent'] };
const PROTECTED_FILE = 'tmp/refunds-export-2026-10.csv';
const EXFIL_HOST = 'refund-check.example';

export interface DemoOptions {
  /** Output directory (created; the demo's own artifacts in it are replaced). */
  out: string;
  quiet?: boolean;
  /** Environment (model choice, OTLP endpoint, packet keys). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where progress lines go (default stdout). */
  write?: (line: string) => void;
}

export interface DemoResult {
  ok: boolean;
  expectations: Expectation[];
  traceId: string;
  outputs: DemoOutputs;
  durationMs: number;
  run: RunResult;
}

/** Runs the whole demo once: real guardrail service, SQLite, tracing, packets and skills. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const env = options.env ?? process.env;
  const startedAt = new Date();
  const progress = new Progress({ quiet: options.quiet === true, ...(options.write ? { write: options.write } : {}) });
  const outputs = demoOutputs(options.out);
  await mkdir(outputs.dir, { recursive: true, mode: 0o700 });
  await clearOutputs(outputs);
  await createWorkspace(DEMO_INPUTS.workspaceFixture, outputs.workspace);

  const cleanups: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const registry = await loadAgentRegistry({ dir: DEMO_INPUTS.agentsDir });
    const triage = registry.get(TRIAGE);
    if (!triage || !registry.get(REFUNDS)) throw new Error(`the demo needs ${TRIAGE} and ${REFUNDS} in ${DEMO_INPUTS.agentsDir}`);
    const canaries = await readCanaries(DEMO_INPUTS.casesFile);

    // Decisions, tool calls, delegations and handoffs are narrated from the runner's events
    // (ids, names and codes); what crossed is read from the store and the captures afterwards.
    const narrator = new RunNarrator(progress);
    const tools = await loadToolModules([DEMO_INPUTS.toolsModule]);

    // Sequence numbers restart with every runner call: turn 2's requests get their own folder.
    let capture = new RequestCapture(outputs.captures);
    const turnOneCapture = capture;
    const seenRuns = new Set<string>();
    // Ephemeral keys unless BATON_PACKET_*_KEY are set: digests then reconcile within this run.
    const keys = packetKeysFromEnv({ env, allowEphemeral: true });
    const service = await startGuardrailService({ policy: demoPolicy(canaries), systemPrompts: [triage.manifest.instructions] });

    // The same composition root as `baton run`: the demo adds its event listener and its own budgets.
    const stack = await createBatonStack({
      registry,
      agentsDir: DEMO_INPUTS.agentsDir,
      // Demo-only: the refunds specialist delegates. Kept out of examples/agents/baton.yml, where it
      // would make every runner built from the examples require a delegation runtime.
      extraSystemTools: { [REFUNDS]: ['delegate_task'] },
      env,
      store: { file: outputs.database, recoverOnOpen: false },
      guardrail: { validator: service.client, close: () => service.close() },
      scenarioFile: DEMO_INPUTS.scenarioFile,
      tools,
      packets: { contractFile: DEMO_INPUTS.contractFile, casesFile: DEMO_INPUTS.casesFile, keys },
      delegation: {
        skillsDir: DEMO_INPUTS.skillsDir,
        workspace: outputs.workspace,
        applyEdits: true,
        testCommand: [process.execPath, 'test/refund-window.test.mjs'],
        timeoutMs: 20_000,
        logger: {
          info: () => undefined,
          warn: (message, fields) =>
            progress.event({
              kind: 'note',
              actor: 'delegation',
              depth: 1,
              title: `${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`,
            }),
        },
      },
      // Every span of the run is exported (JSONL always; OTLP when configured).
      tracing: { serviceName: 'baton-demo', jsonlFile: outputs.spans, env },
      // Same decisions on a saturated machine: a guardrail answer that is merely slow must not
      // become a fail-closed timeout in the demo (production keeps the 2 s default).
      limits: { guardrailTimeoutMs: 60_000 },
      onEvent: narrator.onEvent,
      onModelRequest: async (e) => {
        if (!seenRuns.has(e.runId)) {
          seenRuns.add(e.runId);
          progress.event({ kind: 'run', actor: e.agentId, depth: 0, title: `run ${e.runId} started`, outcome: 'in_progress' });
        }
        await capture.record(e);
        progress.event({ kind: 'model', actor: e.agentId, depth: 0, title: `model request #${e.sequence} → ${stack.model.label}` });
      },
    });
    cleanups.push(() => stack.close());
    const { runner, store, model } = stack;

    progress.say(
      `Baton demo — model: ${model.label}${model.api === 'offline' ? ` (scenario ${path.basename(DEMO_INPUTS.scenarioFile)})` : ''}`,
    );
    progress.say(`  guardrail service  ${service.url}/v1/validate (real HTTP, loopback)`);
    progress.say(`  SQLite store       ${outputs.database}`);
    progress.say(
      `  spans (JSONL)      ${outputs.spans}${env.OTEL_EXPORTER_OTLP_ENDPOINT ? ` + OTLP ${env.OTEL_EXPORTER_OTLP_ENDPOINT}` : ''}`,
    );
    progress.say(`  workspace          ${outputs.workspace}`);
    progress.say('');

    const ids = newTraceIds();
    const run = await runner.run({
      agentId: TRIAGE,
      input: DEMO_INPUT,
      auth: AUTH,
      traceparent: formatTraceparent(ids.traceId, ids.spanId, 1),
    });
    for (const r of run.runs.filter((x) => !narrator.endedRuns.has(x.run_id))) {
      progress.event({
        kind: 'run',
        actor: r.agent_id,
        depth: 0,
        title: `run ${r.run_id} ended`,
        outcome: r.status,
        ...(r.error ? { detail: `${r.error.code}: ${r.error.message}` } : {}),
      });
    }
    progress.event({
      kind: 'note',
      actor: run.agent_id,
      depth: 0,
      title: 'final answer, as the user sees it',
      detail: run.response ?? '(none)',
    });

    const reconciled = await reconcilePackets(narrator.packets, turnOneCapture.requests, store, keys.auditKey);
    for (const { entry, result, boundaryRecorded } of reconciled) {
      if (boundaryRecorded)
        progress.event({
          kind: 'packet',
          actor: entry.destination,
          depth: 0,
          title: `packet ${entry.packetId} boundary proof recorded`,
          detail: 'the recipient\u2019s first model request carries exactly the packet',
        });
      progress.event({
        kind: 'packet',
        actor: entry.destination,
        depth: 0,
        title: `packet ${entry.packetId} reconciled with captured request`,
        outcome: result.ok ? 'reconciled' : 'failed',
        detail: result.ok ? `digest ${entry.digest.slice(0, 16)}…` : result.problems.join('; '),
      });
    }
    const auditCounts: Record<string, number> = {};
    for (const r of await store.listAudit(run.thread_id)) auditCounts[r.kind] = (auditCounts[r.kind] ?? 0) + 1;
    const { toolCalls, delegations } = await callsFromStore(store, run.thread_id, narrator.toolEnds);
    const files = await changedFiles(DEMO_INPUTS.workspaceFixture, outputs.workspace);

    // Turn 2 on the same thread: the runner replays triage's own earlier turn (never the
    // specialist's packet run), so the model can say what was asked; AGENT_RESPONSE still applies.
    capture = new RequestCapture(path.join(outputs.captures, 'turn-2'));
    progress.event({ kind: 'note', actor: 'operator', depth: 0, title: 'turn 2 on the same thread', detail: DEMO_FOLLOW_UP });
    const followUpIds = newTraceIds();
    const followUp = await runner.run({
      agentId: TRIAGE,
      threadId: run.thread_id,
      input: DEMO_FOLLOW_UP,
      auth: AUTH,
      traceparent: formatTraceparent(followUpIds.traceId, followUpIds.spanId, 1),
    });
    progress.event({
      kind: 'note',
      actor: followUp.agent_id,
      depth: 0,
      title: 'turn 2 answer, as the user sees it',
      detail: followUp.response ?? `(none: ${followUp.status})`,
    });
    const followUpRequest = capture.requests[0]?.json ?? '';

    await closeAll();
    const spansWithTraceId = await countSpans(outputs.spans, run.trace_id);

    const expectations = checkExpectations({
      run,
      decisions: narrator.decisions,
      toolCalls,
      delegations,
      packets: reconciled,
      recipientRequests: turnOneCapture.requests.filter((r) => r.agentId === REFUNDS),
      recipientAgentId: REFUNDS,
      canaries,
      files,
      auditCounts,
      spansWithTraceId,
      protectedFile: { path: PROTECTED_FILE, exists: existsSync(path.join(outputs.workspace, PROTECTED_FILE)) },
      exfilHost: EXFIL_HOST,
    });
    expectations.push({
      label: 'Two-turn conversation on the thread',
      ok:
        followUp.status === 'completed' &&
        followUp.thread_id === run.thread_id &&
        followUpRequest.includes('CASE-1001') &&
        (followUp.response ?? '').includes('CASE-1001'),
      detail: `turn 2 ${followUp.status}; its model request replays turn 1: ${followUpRequest.includes('CASE-1001') ? 'yes' : 'no'}; answer: ${followUp.response ?? '(none)'}`,
    });
    const durationMs = Math.round(progress.elapsed());
    await writeReport(
      outputs.report,
      buildReport({
        traceId: run.trace_id,
        startedAt,
        durationMs,
        model: model.label,
        events: progress.events,
        packets: reconciled.map((p) => p.entry),
        expectations,
        outputs,
      }),
    );
    printSummary(progress, { expectations, run, outputs, durationMs, files, decisions: narrator.decisions });
    return { ok: expectations.every((e) => e.ok), expectations, traceId: run.trace_id, outputs, durationMs, run };
  } finally {
    await closeAll();
  }
}

async function countSpans(file: string, traceId: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      if ((JSON.parse(line) as { trace_id?: unknown }).trace_id === traceId) n++;
    } catch {
      // A torn last line is not a span.
    }
  }
  return n;
}

function printSummary(
  progress: Progress,
  s: {
    expectations: Expectation[];
    run: RunResult;
    outputs: DemoOutputs;
    durationMs: number;
    files: { modified: string[]; deleted: string[] };
    decisions: ObservedDecision[];
  },
): void {
  const count = (d: string) => s.decisions.filter((x) => x.decision === d).length;
  progress.always('');
  progress.always(`Summary — ${s.run.model}`);
  for (const e of s.expectations) progress.always(`  ${e.ok ? '✔' : '✘'} ${e.label}: ${e.detail}`);
  progress.always(
    `  guardrail decisions: ${s.decisions.length} (${count('ALLOW')} ALLOW, ${count('MODIFY')} MODIFY, ${count('BLOCK')} BLOCK)`,
  );
  progress.always(
    `  files changed in the workspace: ${s.files.modified.join(', ') || 'none'}${s.files.deleted.length ? `; deleted: ${s.files.deleted.join(', ')}` : ''}`,
  );
  progress.always(`  trace id: ${s.run.trace_id}`);
  progress.always(`  thread id: ${s.run.thread_id}`);
  progress.always(`  SQLite: ${s.outputs.database}`);
  progress.always(`  spans: ${s.outputs.spans}`);
  progress.always(`  report: ${s.outputs.report}`);
  progress.always(`  wall time: ${(s.durationMs / 1000).toFixed(2)} s`);
}
