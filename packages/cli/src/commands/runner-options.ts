import { Option } from 'commander';
import type { Command } from 'commander';

/**
 * The options `baton run` and `baton serve` share: where state lives, which guardrail, model
 * scenario, tools and packet contract the runner is set up with. Kept apart from runner-setup.ts,
 * which loads the runner lazily, so registering the commands stays cheap.
 */
export interface RunnerSetupCommandOptions {
  store: string;
  guardrailUrl?: string;
  scenario?: string;
  tools?: string[];
  contract?: string;
  cases?: string;
  /** False with `--no-packets`. */
  packets: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the shared runner-setup options to `command`. */
export function addRunnerSetupOptions(command: Command): Command {
  return command
    .option('--store <file>', 'SQLite file for threads, runs and state', '.baton/baton.db')
    .addOption(new Option('--guardrail-url <url>', 'guardrail service URL (default: the in-process engine)').env('BATON_GUARDRAIL_URL'))
    .option('--scenario <file>', 'offline-model scenario (default: <agents>/../scenarios/*.scenario.yml)')
    .option('--tools <module>', 'module exporting `tools` (repeatable; default: <agents>/../tools/*.mjs)', collect)
    .option('--contract <file>', 'recipient contract for purpose-bound handoff packets (default: <agents>/../contracts/*.contract.yml)')
    .option('--cases <file>', 'case data the packets are built from (default: <agents>/../data/cases.json)')
    .option('--no-packets', 'hand off without packets: the target sees only the handoff input');
}

/**
 * The `setupRunner` fields these options map to (the guardrail token comes from
 * `BATON_GUARDRAIL_TOKEN`, never a flag, so it stays out of process listings).
 */
export function runnerSetupFields(opts: RunnerSetupCommandOptions, env: NodeJS.ProcessEnv) {
  return {
    ...(opts.guardrailUrl
      ? { guardrailUrl: opts.guardrailUrl, ...(env.BATON_GUARDRAIL_TOKEN ? { guardrailToken: env.BATON_GUARDRAIL_TOKEN } : {}) }
      : {}),
    ...(opts.scenario ? { scenarioFile: opts.scenario } : {}),
    ...(opts.tools ? { toolModules: opts.tools } : {}),
    ...(opts.contract !== undefined ? { contractFile: opts.contract } : {}),
    ...(opts.cases !== undefined ? { casesFile: opts.cases } : {}),
    packets: opts.packets,
  };
}

/**
 * `--skills`, `--workspace` and `--apply-edits` for the commands that run agents in this process
 * (`baton run`, `baton serve`), as `baton worker` has them: an agent whose baton.yml
 * `system_tools` name `delegate_task` needs the skills directory.
 */
export function addDelegationOptions(command: Command): Command {
  return command
    .option('--skills <dir>', 'directory of skills delegate_task may start (default: <agents>/../skills when it exists)')
    .option('--workspace <dir>', 'directory subagents work in; file references resolve inside it', '.')
    .option('--apply-edits', 'apply the edits of successful subtasks to the workspace', false);
}
