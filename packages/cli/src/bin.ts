#!/usr/bin/env node
import { CommanderError } from 'commander';
import { createProgram } from './program.js';

// Exit codes: 0 success, 1 the command ran and found problems (or failed), 2 usage error.
try {
  await createProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`baton: ${message}\n`);
    // From the error's `kind` alone: 2 for a usage error, 1 for anything else.
    process.exitCode = await (await import('./errors.js')).exitCodeFor(err);
  }
}
