import { parseArgs } from 'node:util';

export interface DemoArgs {
  /** Output directory for the SQLite store, spans, captures, workspace and report. */
  out: string;
  /** Print only the summary. */
  quiet: boolean;
  help: boolean;
}

export const USAGE = `Usage: npm run demo -- [--out <dir>] [--quiet]

Runs the Baton customer-support demo end to end (offline model unless OPENAI_API_KEY or
OPENAI_BASE_URL is set) and writes an HTML run report.

  --out <dir>   where the run's artifacts go (default .baton/demo); the demo's own files there
                are replaced on every run
  --quiet       print only the summary
  -h, --help    show this help
`;

/** A mistake on the command line (exit code 2). */
export class DemoUsageError extends Error {
  override readonly name = 'DemoUsageError';
}

/** Parses the demo's command line; every mistake is a DemoUsageError naming the bad argument. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let values: { out?: string; quiet?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { out: { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new DemoUsageError((err as Error).message);
  }
  if (values.out !== undefined && values.out.trim() === '') throw new DemoUsageError('--out must name a directory');
  return { out: values.out ?? '.baton/demo', quiet: values.quiet === true, help: values.help === true };
}
