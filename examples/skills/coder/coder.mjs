// coder: a Baton example skill. Given a SkillPackage asking to fix a bug in one file of the
// workspace (payload: { file, find, replace, format? }), it reads the file and returns the fix as
// an edit (Targeted Replace Blocks, or a unified diff with format: "unified_diff") for the parent
// to apply. It never writes the file itself and never touches the network.
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

const yieldControl = (response) => process.stdout.write(`${JSON.stringify(response)}\n`);
const fail = (status, code, message) => ({ status, output_payload: {}, error_report: { code, message } });

function count(haystack, needle) {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** A one-hunk unified diff (3 lines of context) between two versions of a file. */
function unifiedDiff(file, before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a[endA] === b[endB]) {
    endA--;
    endB--;
  }
  // A trailing newline leaves an empty last element: it is not a line.
  const lastA = before.endsWith('\n') ? a.length - 2 : a.length - 1;
  const lastB = after.endsWith('\n') ? b.length - 2 : b.length - 1;
  const from = Math.max(0, start - 3);
  const toA = Math.min(lastA, endA + 3);
  const toB = Math.min(lastB, endB + 3);
  const lines = [];
  for (let i = from; i < start; i++) lines.push(` ${a[i]}`);
  for (let i = start; i <= endA; i++) lines.push(`-${a[i]}`);
  for (let i = start; i <= endB; i++) lines.push(`+${b[i]}`);
  for (let i = endA + 1; i <= toA; i++) lines.push(` ${a[i]}`);
  const oldCount = toA - from + 1;
  const newCount = toB - from + 1;
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -${from + 1},${oldCount} +${from + 1},${newCount} @@\n${lines.join('\n')}\n`;
}

function run(pkg) {
  const { file, find, replace, format } = pkg.payload ?? {};
  const rel = typeof file === 'object' && file !== null ? file.path : file;
  if (typeof rel !== 'string' || typeof find !== 'string' || typeof replace !== 'string' || find === '') {
    return fail('BLOCKED_AWAITING_CLARIFICATION', 'ERR_INSUFFICIENT_CONTEXT', 'payload needs file, find (non-empty) and replace strings');
  }
  const workspace = realpathSync(process.cwd());
  let abs;
  try {
    abs = realpathSync(path.resolve(workspace, rel));
  } catch {
    return fail('FAILURE', 'ERR_INSUFFICIENT_CONTEXT', `${rel} does not exist in the workspace`);
  }
  const inside = path.relative(workspace, abs);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return fail('FAILURE', 'ERR_CONSTRAINT_VIOLATION', `${rel} is outside the workspace`);
  const before = readFileSync(abs, 'utf8');
  const n = count(before, find);
  if (n === 0) return fail('FAILURE', 'ERR_INSUFFICIENT_CONTEXT', `the text to fix was not found in ${inside}`);
  if (n > 1) return fail('BLOCKED_AWAITING_CLARIFICATION', 'ERR_INSUFFICIENT_CONTEXT', `the text to fix occurs ${n} times in ${inside}; say which one`);
  const relPosix = inside.split(path.sep).join('/');
  const edits =
    format === 'unified_diff'
      ? unifiedDiff(relPosix, before, before.replace(find, () => replace))
      : `FILE: ${relPosix}\nREPLACE_START\n${find}\nREPLACE_WITH\n${replace}\nREPLACE_END\n`;
  return {
    status: 'SUCCESS',
    output_payload: { edits, files: [relPosix], summary: `replaced 1 occurrence in ${relPosix}` },
    log_summary: `prepared a ${format === 'unified_diff' ? 'unified diff' : 'replace block'} for ${relPosix}`,
  };
}

let pkg;
try {
  pkg = JSON.parse(readFileSync(0, 'utf8'));
} catch (err) {
  yieldControl(fail('FAILURE', 'ERR_INSUFFICIENT_CONTEXT', `stdin is not a SkillPackage: ${err.message}`));
  process.exit(0);
}
try {
  yieldControl(run(pkg));
} catch (err) {
  yieldControl(fail('FAILURE', 'ERR_TOOL_FAILURE', String(err?.message ?? err)));
}
