import { EditError } from '../errors.js';

/** One Targeted Replace Block: replace `original` (which must occur exactly once) in `file`. */
export interface ReplaceBlock {
  file: string;
  original: string;
  replacement: string;
}

/**
 * Parses the seed's Targeted Replace Blocks:
 * `FILE: path` / `REPLACE_START` / original / `REPLACE_WITH` / new / `REPLACE_END`, repeated.
 * Snippets are the lines between the markers joined with `\n` (no trailing newline added).
 */
export function parseReplaceBlocks(text: string): ReplaceBlock[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const blocks: ReplaceBlock[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw new EditError('PARSE_ERROR', `replace blocks, line ${i + 1}: ${msg}`);
  };
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const m = /^FILE:\s*(.+?)\s*$/.exec(line);
    if (!m) fail(`expected "FILE: <path>", found ${JSON.stringify(line.slice(0, 80))}`);
    const file = (m as RegExpExecArray)[1] as string;
    i++;
    if (lines[i]?.trim() !== 'REPLACE_START') fail(`expected REPLACE_START after FILE: ${file}`);
    i++;
    const original: string[] = [];
    while (i < lines.length && lines[i]?.trim() !== 'REPLACE_WITH') {
      if (lines[i]?.trim() === 'REPLACE_END' || lines[i]?.trim() === 'REPLACE_START')
        fail(`expected REPLACE_WITH in the block for ${file}`);
      original.push(lines[i] as string);
      i++;
    }
    if (i >= lines.length) fail(`missing REPLACE_WITH in the block for ${file}`);
    i++;
    const replacement: string[] = [];
    while (i < lines.length && lines[i]?.trim() !== 'REPLACE_END') {
      if (lines[i]?.trim() === 'REPLACE_WITH' || lines[i]?.trim() === 'REPLACE_START')
        fail(`expected REPLACE_END in the block for ${file}`);
      replacement.push(lines[i] as string);
      i++;
    }
    if (i >= lines.length) fail(`missing REPLACE_END in the block for ${file}`);
    i++;
    if (original.length === 0 || original.join('\n') === '') fail(`the original snippet for ${file} is empty`);
    blocks.push({ file, original: original.join('\n'), replacement: replacement.join('\n') });
  }
  if (blocks.length === 0) throw new EditError('PARSE_ERROR', 'no replace blocks found');
  return blocks;
}

/** Counts non-overlapping occurrences of `needle` in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return count;
    count++;
    from = at + needle.length;
  }
}

/** Applies one block to `content`; the original must match exactly once. */
export function applyReplaceBlock(content: string, block: ReplaceBlock, relative: string): string {
  const n = countOccurrences(content, block.original);
  if (n === 0) {
    throw new EditError('NO_MATCH', `${relative}: the original snippet of a replace block was found 0 times (it must match exactly once)`, {
      file: relative,
    });
  }
  if (n > 1) {
    throw new EditError(
      'AMBIGUOUS_MATCH',
      `${relative}: the original snippet of a replace block was found ${n} times (it must match exactly once; add surrounding lines to make it unique)`,
      { file: relative },
    );
  }
  const at = content.indexOf(block.original);
  return content.slice(0, at) + block.replacement + content.slice(at + block.original.length);
}
