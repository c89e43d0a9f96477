// appender: a Baton example skill for the scale-out example. It records a ticket by returning a
// Targeted Replace Block that inserts one line before the END marker of `ledger/<ticket>.txt`
// (or, when that file does not exist yet, a unified diff that creates it).
// Applying that edit twice would record the ticket twice: the write-ahead edit ledger is what
// prevents it when a worker dies mid-task. It works for 300 ms first (a stand-in for real work),
// and logs each invocation under `invocations/` so tests can count them.
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const pkg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const ticket = String(pkg.payload?.ticket ?? '');
if (!/^T-[0-9]+$/.test(ticket)) {
  process.stdout.write(`${JSON.stringify({ status: 'FAILURE', output_payload: {}, error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: 'payload.ticket must look like T-<n>' } })}\n`);
  process.exit(0);
}
mkdirSync('invocations', { recursive: true });
appendFileSync(path.join('invocations', `${ticket}.log`), `${process.pid}\n`);
await sleep(300);
const file = `ledger/${ticket}.txt`;
const edits = existsSync(file)
  ? [`FILE: ${file}`, 'REPLACE_START', 'END', 'REPLACE_WITH', `recorded ${ticket}`, 'END', 'REPLACE_END', ''].join('\n')
  : [`--- /dev/null`, `+++ b/${file}`, '@@ -0,0 +1,2 @@', `+recorded ${ticket}`, '+END', ''].join('\n');
process.stdout.write(`${JSON.stringify({ status: 'SUCCESS', output_payload: { edits, ticket }, log_summary: `recorded ${ticket}` })}\n`);
