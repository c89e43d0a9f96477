import { structuredPatch } from 'diff';

/** Options for {@link createUnifiedDiff}. */
export interface CreateUnifiedDiffOptions {
  /** Workspace-relative path (POSIX separators). */
  path: string;
  /** Content before; `null` for a file being created. */
  before: string | null;
  /** Content after; `null` for a file being deleted. */
  after: string | null;
  /** Lines of context (default 3, as git). */
  context?: number;
}

/**
 * Produces a git-compatible unified diff (`diff --git a/… b/…`, `---`/`+++` headers, hunks) for
 * one file; an empty string when nothing changed. `git apply` accepts the result.
 */
export function createUnifiedDiff(options: CreateUnifiedDiffOptions): string {
  const { path: file, before, after } = options;
  if (before === after) return '';
  const p = structuredPatch(`a/${file}`, `b/${file}`, before ?? '', after ?? '', undefined, undefined, { context: options.context ?? 3 });
  const lines: string[] = [`diff --git a/${file} b/${file}`];
  if (before === null) lines.push('new file mode 100644');
  if (after === null) lines.push('deleted file mode 100644');
  if (p.hunks.length === 0) return before === null || after === null ? `${lines.join('\n')}\n` : '';
  lines.push(before === null ? '--- /dev/null' : `--- a/${file}`);
  lines.push(after === null ? '+++ /dev/null' : `+++ b/${file}`);
  for (const h of p.hunks) {
    // git writes an empty side as `-0,0`; jsdiff's start is already 0 in that case.
    const oldStart = h.oldLines === 0 ? Math.max(0, h.oldStart - 1) : h.oldStart;
    const newStart = h.newLines === 0 ? Math.max(0, h.newStart - 1) : h.newStart;
    lines.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`);
    lines.push(...h.lines);
  }
  return `${lines.join('\n')}\n`;
}
