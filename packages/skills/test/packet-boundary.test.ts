/**
 * A delegation packet gate gets proof hooks on both subagent paths: the exact SkillPackage object
 * written to a skill process's stdin, and (through the runner's `inputBoundary`) an agent
 * subagent's first model request. A hook that refuses stops the attempt before anything is sent.
 */
import { createHash } from 'node:crypto';
import { createAgentRegistry, Runner } from '@baton/runner';
import type { AgentManifestLike } from '@baton/runner';
import { describe, expect, it } from 'vitest';
import { createDelegation, renderSkillPackage } from '../src/index.js';
import type { DelegationPacketGate, SubagentRunner } from '../src/index.js';
import { createScriptedProvider } from '@baton/runner/testing';
import { nodeSkill, skillsDir } from './helpers/skills.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from '@baton/manifest/testing';

const WORKER = 'io.baton.test.worker';
const ECHO = nodeSkill(`return { status: 'SUCCESS', output_payload: { received: pkg } };`);
const allowAll = allowAllGuardrail();
const digest = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');

/** A gate that narrows the payload to `allowed` and records a digest of what each attempt sends. */
function recordingGate(options: { refuse?: boolean } = {}) {
  const proofs: Array<{ kind: 'stdin' | 'model'; digest: string; text?: string }> = [];
  const gate: DelegationPacketGate = {
    async prepare({ skillPackage }) {
      const allowed = { allowed: skillPackage.payload.allowed };
      return {
        skillPackage: { ...skillPackage, payload: allowed },
        boundary: {
          onRecipientProcessInput(stdin) {
            proofs.push({ kind: 'stdin', digest: digest(stdin) });
            if (options.refuse) throw new Error('not the packet');
          },
          onRecipientModelRequest(request) {
            const input = (request as { input: unknown }).input;
            const text =
              typeof input === 'string'
                ? input
                : (input as Array<{ content?: unknown }>)
                    .map((i) => (typeof i.content === 'string' ? i.content : JSON.stringify(i.content)))
                    .join('\n');
            proofs.push({ kind: 'model', digest: digest(input), text });
            if (options.refuse) throw Object.assign(new Error('not the packet'), { code: 'BOUNDARY_VIOLATION' });
          },
        },
      };
    },
  };
  return { gate, proofs };
}

describe('delegation packet gate: boundary proof on every subagent path', () => {
  it('a skill process: the hook sees exactly the object the skill received on stdin; a refusal sends nothing', async () => {
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const { gate, proofs } = recordingGate();
    const d = createDelegation({ guardrails: allowAllGuardrail(), skillsDir: dir, workspace: await tempDir(), packetGate: gate, env: {} });
    const res = await d.delegate({
      subagent_type: 'echo',
      instruction_set: 'Echo.',
      input_data: { allowed: 1, secret: 'PARENT-SECRET-42' },
    });
    expect(res.status).toBe('SUCCESS');
    const received = res.output_payload.received as Record<string, unknown>;
    expect(JSON.stringify(received)).not.toContain('PARENT-SECRET-42');
    expect(proofs).toEqual([{ kind: 'stdin', digest: digest(received) }]);

    const refusing = recordingGate({ refuse: true });
    const stopped = await createDelegation({
      guardrails: allowAllGuardrail(),
      skillsDir: dir,
      workspace: await tempDir(),
      packetGate: refusing.gate,
      env: {},
    }).delegate({ subagent_type: 'echo', instruction_set: 'Echo.', input_data: { allowed: 1 } });
    expect(stopped.status).toBe('FAILURE');
    expect(stopped.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
    expect(stopped.error_report?.message).toMatch(/packet gate refused what would be sent to echo/);
    expect(refusing.proofs).toHaveLength(1);
  });

  it('an agent subagent: the runner hands its first model request to the hook; a refusal means its model answers nothing', async () => {
    const manifest: AgentManifestLike = {
      schema_version: '1.0',
      id: WORKER,
      version: '1.0.0',
      name: 'worker',
      instructions: 'You are worker.',
      model: { provider: 'openai', name: 'worker' },
      tools: [],
    };
    for (const refuse of [false, true]) {
      const models = createScriptedProvider({
        scripts: {
          worker: () => ({
            toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { ok: true }, log_summary: 'done' } }],
          }),
        },
      });
      const holder: { runner?: Runner } = {};
      const lazy: SubagentRunner = { run: (req) => (holder.runner as Runner).run(req) };
      const { gate, proofs } = recordingGate({ refuse });
      let sentPackage: unknown;
      const d = createDelegation({
        guardrails: allowAllGuardrail(),
        runner: lazy,
        agents: [WORKER],
        workspace: await tempDir(),
        packetGate: {
          prepare: async (req) => {
            const out = await gate.prepare(req);
            sentPackage = out.skillPackage;
            return out;
          },
        },
        env: {},
      });
      holder.runner = new Runner({
        registry: createAgentRegistry({ agents: [{ manifest, source: 'worker.agent.yml' }] }),
        guardrails: allowAll,
        modelProvider: models.provider,
      });
      const res = await d.delegate({
        subagent_type: WORKER,
        instruction_set: 'Check it.',
        input_data: { allowed: 2, secret: 'PARENT-SECRET-42' },
      });
      if (!refuse) {
        expect(res.status).toBe('SUCCESS');
        expect(proofs).toHaveLength(1);
        expect(proofs[0]!.kind).toBe('model');
        expect(proofs[0]!.text).toBe(renderSkillPackage({ ...(sentPackage as Parameters<typeof renderSkillPackage>[0]), attempt: 1 }));
        expect(proofs[0]!.text).not.toContain('PARENT-SECRET-42');
        expect(proofs[0]!.digest).toBe(digest(models.requests['worker']![0]!.input));
      } else {
        expect(res.status).toBe('FAILURE');
        expect(proofs.length).toBeGreaterThan(0);
        // The hook runs before the model is called: the worker's model never answered.
        expect(models.requests['worker'] ?? []).toHaveLength(0);
      }
    }
  });
});
