// Decontamination: the only use of the reserved held-out texts while building. A training row that
// shares a long n-gram with any held-out row (8 consecutive words, or 24 consecutive letters of a
// script written without spaces) is dropped, so that templates copied between public collections
// (e.g. jailbreak personas from the same site) cannot leak held-out rows into training. Only the
// n-gram sets are built from the held-out files; no held-out row is printed or otherwise used.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const WORDS = 8;
const CHARS = 24;
const norm = (t) =>
  t
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

function grams(text) {
  const out = [];
  const n = norm(text);
  const words = n.split(' ').filter(Boolean);
  for (let i = 0; i + WORDS <= words.length; i++) out.push(words.slice(i, i + WORDS).join(' '));
  // Scripts without spaces (Han, kana, Thai...): long runs of letters.
  for (const w of words) if (w.length >= CHARS * 2) for (let i = 0; i + CHARS <= w.length; i += 4) out.push(`#${w.slice(i, i + CHARS)}`);
  return out;
}

/** N-gram set of every row in `dir`'s *.jsonl files (the reserved held-out sets). */
export function heldOutGrams(dir) {
  const set = new Set();
  if (!existsSync(dir)) return set;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl')))
    for (const l of readFileSync(join(dir, f), 'utf8').split('\n')) if (l) for (const g of grams(JSON.parse(l).text ?? '')) set.add(g);
  return set;
}

/**
 * Rows without any n-gram in `set`, and the count dropped per "label source". Held-out benign
 * rows count as well as attacks: a shared long passage is contamination either way.
 */
export function decontaminate(rows, set) {
  const dropped = {};
  const kept = rows.filter((row) => {
    const hit = grams(row.text).some((g) => set.has(g));
    if (hit) {
      const k = `${row.label} ${row.source}`;
      dropped[k] = (dropped[k] ?? 0) + 1;
    }
    return !hit;
  });
  return { kept, dropped };
}
