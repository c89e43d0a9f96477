export {
  applyEdits,
  detectEditFormat,
  sha256Hex,
  type ApplyEditsOptions,
  type ApplyEditsResult,
  type EditInput,
  type FileChange,
} from './apply-edits.js';
export { createUnifiedDiff, type CreateUnifiedDiffOptions } from './create-diff.js';
export { parseReplaceBlocks, type ReplaceBlock } from './replace-blocks.js';
export { parseUnifiedDiff, type FilePatch } from './unified-diff.js';
export { resolveInsideWorkspace, type WorkspacePath } from './workspace-path.js';
