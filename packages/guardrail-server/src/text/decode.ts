/**
 * Decodes encoded layers an attacker may hide an instruction in: base64, hex, percent-encoding,
 * ROT13/Caesar, reversed text and Unicode tag characters. Bounded: at most `MAX_DECODED_CHARS`
 * of decoded text and `MAX_LAYERS` nested layers.
 */
import { Buffer } from 'node:buffer';
import { decodeTagCharacters } from './normalize.js';

const MAX_DECODED_CHARS = 8192;
const MAX_LAYERS = 2;
// Only tried where a run starts: a run shorter than 16 has no 16-long suffix either, so the
// lookbehind finds exactly the same matches without rescanning every word from each letter.
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}){8,}\b/g;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2}){4,}/g;
const ROT_HINT = /\b(?:rot-?13|rot 13|caesar|cipher|shift(?:ed)? (?:by )?\d+)\b/i;
const REVERSE_HINT = /\b(?:backwards?|reversed?|right to left)\b/i;

function isReadableText(s: string): boolean {
  if (s.length < 6) return false;
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09 || c >= 0xa0) printable++;
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) letters++;
  }
  return printable / s.length > 0.95 && letters / s.length > 0.5 && s.includes(' ');
}

function shiftLetters(s: string, k: number): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) out += String.fromCharCode(((c - 65 + k) % 26) + 65);
    else if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + k) % 26) + 97);
    else out += s[i];
  }
  return out;
}

function decodeOnce(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    const run = m[0];
    // Identifiers and paths are base64-alphabet too; real payloads mix case and digits.
    if (!/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue;
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (isReadableText(decoded)) out.push(decoded);
  }
  for (const m of text.matchAll(HEX_RUN)) {
    const decoded = Buffer.from(m[0], 'hex').toString('utf8');
    if (isReadableText(decoded)) out.push(decoded);
  }
  for (const m of text.matchAll(PERCENT_RUN)) {
    try {
      const decoded = decodeURIComponent(m[0]);
      if (isReadableText(decoded)) out.push(decoded);
    } catch {
      // not valid UTF-8 percent-encoding: nothing hidden we can read
    }
  }
  if (ROT_HINT.test(text)) {
    const caesar = /caesar|shift/i.test(text);
    for (let k = 1; k < 26; k++) if (k === 13 || caesar) out.push(shiftLetters(text, k));
  }
  if (REVERSE_HINT.test(text)) out.push([...text].reverse().join(''));
  const tags = decodeTagCharacters(text);
  if (tags) out.push(tags);
  return out;
}

/** Every decoded layer found in `text` (not including `text` itself), bounded in size and depth. */
export function decodeLayers(text: string): string[] {
  const layers: string[] = [];
  let frontier = [text.length > 65536 ? text.slice(0, 65536) : text];
  let budget = MAX_DECODED_CHARS;
  for (let depth = 0; depth < MAX_LAYERS && frontier.length > 0 && budget > 0; depth++) {
    const next: string[] = [];
    for (const t of frontier) {
      for (const d of decodeOnce(t)) {
        if (budget <= 0) break;
        const piece = d.length > budget ? d.slice(0, budget) : d;
        budget -= piece.length;
        layers.push(piece);
        next.push(piece);
      }
    }
    frontier = depth === 0 ? next.filter((t) => t.length < 4096) : [];
  }
  return layers;
}
