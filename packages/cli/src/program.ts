import { Command } from 'commander';
import { register as registerGuardrail } from './commands/guardrail.js';
import { register as registerRun } from './commands/run.js';
import { register as registerServe } from './commands/serve.js';
import { register as registerSkill } from './commands/skill.js';
import { register as registerValidate } from './commands/validate.js';
import { register as registerWorker } from './commands/worker.js';

/**
 * Builds the `baton` command. Each subcommand lives in `commands/<name>.ts` and exports a
 * `register(program)` function; add it to the list below.
 */
export function createProgram(): Command {
  const program = new Command('baton')
    .description('Baton: handoffs, delegation and guardrails for multi-agent systems on the OpenAI Agents SDK')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

const COMMANDS: Array<(program: Command) => void> = [
  // validate, guardrail, run, serve, skill: each helper appends its register function here.
  registerGuardrail,
  registerRun,
  registerServe,
  registerSkill,
  registerValidate,
  registerWorker,
];
