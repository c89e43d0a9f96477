// cleaner: a Baton example skill that proposes deleting files (payload: { paths: [...] }) as a
// unified diff to /dev/null. It declares `file_delete`, so the runtime only starts it when the
// request says requires_approval: true AND the approval hook says yes; the parent applies the
// deletion (which again needs file_delete). It never deletes anything itself.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

const yieldControl = (response) => process.stdout.write(`${JSON.stringify(response)}\n`);
const fail = (code, message) => ({ status: 'FAILURE', output_payload: {}, error_report: { code, message } });

function run(pkg) {
  const paths = pkg.payload?.paths;
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) {
    return { status: 'BLOCKED_AWAITING_CLARIFICATION', output_payload: {}, error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: 'payload.paths must list the files to delete' } };
  }
  const workspace = realpathSync(process.cwd());
  const parts = [];
  const deleted = [];
  for (const p of paths) {
    let abs;
    try {
      abs = realpathSync(path.resolve(workspace, p));
    } catch {
      return fail('ERR_INSUFFICIENT_CONTEXT', `${p} does not exist`);
    }
    const rel = path.relative(workspace, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return fail('ERR_CONSTRAINT_VIOLATION', `${p} is outside the workspace`);
    if (!statSync(abs).isFile()) return fail('ERR_CONSTRAINT_VIOLATION', `${p} is not a regular file`);
    const posix = rel.split(path.sep).join('/');
    const text = readFileSync(abs, 'utf8');
    const lines = text.split('\n');
    if (text.endsWith('\n')) lines.pop();
    const body = lines.map((l) => `-${l}`);
    if (!text.endsWith('\n') && text !== '') body.push('\\ No newline at end of file');
    parts.push(`diff --git a/${posix} b/${posix}\ndeleted file mode 100644\n--- a/${posix}\n+++ /dev/null\n${lines.length ? `@@ -1,${lines.length} +0,0 @@\n${body.join('\n')}\n` : ''}`);
    deleted.push(posix);
  }
  return { status: 'SUCCESS', output_payload: { diff: parts.join(''), deleted }, log_summary: `proposed deleting ${deleted.length} file(s)` };
}

let pkg;
try {
  pkg = JSON.parse(readFileSync(0, 'utf8'));
} catch (err) {
  yieldControl(fail('ERR_INSUFFICIENT_CONTEXT', `stdin is not a SkillPackage: ${err.message}`));
  process.exit(0);
}
try {
  yieldControl(run(pkg));
} catch (err) {
  yieldControl(fail('ERR_TOOL_FAILURE', String(err?.message ?? err)));
}
