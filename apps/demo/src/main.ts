#!/usr/bin/env node
// `npm run demo`: the Baton demo end to end. Exit 0 only when every expected behaviour happened;
// 1 names what did not; 2 is a command-line mistake.
import { DemoUsageError, USAGE, parseDemoArgs } from './args.js';
import { runDemo } from './demo.js';

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseDemoArgs(argv);
  } catch (err) {
    if (err instanceof DemoUsageError) {
      process.stderr.write(`baton demo: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const result = await runDemo({ out: args.out, quiet: args.quiet });
    if (!result.ok) {
      const missed = result.expectations.filter((e) => !e.ok).map((e) => e.label);
      process.stderr.write(`baton demo: FAILED — did not happen: ${missed.join('; ')}\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    process.stderr.write(`baton demo: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Everything is closed by now; if a library left a handle open, do not hang the terminal.
setTimeout(() => process.exit(code), 2_000).unref();
