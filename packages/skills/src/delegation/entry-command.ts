import path from 'node:path';
import { SkillsConfigError } from '../errors.js';

/**
 * How an entry point is started, by extension: `.mjs`/`.js`/`.cjs` with this Node, `.py` with
 * `python3`, `.sh` with `bash`; any other file must be executable and is run directly. `.ts` is
 * refused: Node 20 cannot run TypeScript, so a TypeScript skill points `entry_point` at its
 * compiled `.js` (the scaffold does this).
 */
export function entryCommand(entryPath: string): { command: string; args: string[] } {
  const ext = path.extname(entryPath).toLowerCase();
  switch (ext) {
    case '.mjs':
    case '.js':
    case '.cjs':
      return { command: process.execPath, args: [entryPath] };
    case '.py':
      return { command: 'python3', args: [entryPath] };
    case '.sh':
      return { command: 'bash', args: [entryPath] };
    case '.ts':
    case '.mts':
    case '.cts':
      throw new SkillsConfigError(
        'SKILL_ENTRY_UNSUPPORTED',
        `${entryPath}: Node 20 cannot run TypeScript; point entry_point at the compiled .js file`,
      );
    default:
      return { command: entryPath, args: [] };
  }
}
