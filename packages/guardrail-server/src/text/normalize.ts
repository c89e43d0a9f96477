/**
 * Text folding for matching: what an attacker can vary without changing what a model reads.
 * The folded text is for detection only; offsets in it do not map back to the input.
 */

// Zero-width, joiners, soft hyphen, combining grapheme joiner, Arabic letter mark, word joiner,
// BOM, bidi controls, Mongolian vowel separator, variation selectors, Hangul fillers.
// The classes below deliberately hold lone combining marks (variation selectors, the grapheme
// joiner): matching them one by one is the point, so no-misleading-character-class is off for them.
const INVISIBLE_CLASS =
  '[\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0]';
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = new RegExp(INVISIBLE_CLASS, 'g');
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE_ONE = new RegExp(`^${INVISIBLE.source}$`);
// Variation selectors supplement (U+E0100..U+E01EF) and tag characters: invisible astral code points.
const INVISIBLE_ASTRAL = (cp: number): boolean => (cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0xe0100 && cp <= 0xe01ef);
// Unicode tag characters (U+E0000..U+E007F) mirror ASCII and are invisible when rendered.
// eslint-disable-next-line no-misleading-character-class
const TAG_CHARS = new RegExp('[\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}]', 'gu');
const NON_ASCII = /[\u0080-\uffff]/;

// Cyrillic, Greek and a few other letters that render like Latin ones (subset of Unicode
// confusables.txt that NFKC leaves alone).
export const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ɡ: 'g',
  ո: 'n',
  ս: 'u',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  τ: 't',
  ι: 'i',
  κ: 'k',
  υ: 'u',
  χ: 'x',
  ε: 'e',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ı: 'i',
  ℓ: 'l',
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');
const MIXED_TOKEN = /[\p{L}\p{M}]+/gu;
const CONFUSABLE_TEST = new RegExp(CONFUSABLE_RE.source);

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };
// A token that mixes letters with leet digits, e.g. "1gn0r3" or "pr3v10u5".
const LEET_TOKEN = /\b(?=[a-z0-9@$]*[a-z])(?=[a-z0-9@$]*[013457@$])[a-z0-9@$]{3,}\b/g;
// Letters separated by single spaces: "i g n o r e".
const SPACED_LETTERS = /\b(?:[a-z] ){2,}[a-z]\b/g;
const SPACED_HINT = /\b[a-z] [a-z] [a-z]\b/;
const LEET_HINT = /[a-z][013457@$]|[013457@$][a-z]/;
const WHITESPACE_HINT = /\s\s|[\t\n\r\f\v\u00a0\u2000-\u200a\u2028\u2029\u3000]/;

/** True for one code point that renders as nothing (zero-width, bidi, tag, variation selector, ...). */
export function isInvisible(ch: string, cp: number): boolean {
  // A lone surrogate (ill-formed UTF-16) carries nothing a reader can see either.
  if (cp >= 0xd800 && cp <= 0xdfff) return true;
  return cp > 0xffff ? INVISIBLE_ASTRAL(cp) : INVISIBLE_ONE.test(ch);
}

/** Removes invisible characters (zero-width, bidi controls, tag characters). */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '').replace(TAG_CHARS, '');
}

/** The ASCII text hidden in Unicode tag characters, or `''`. */
export function decodeTagCharacters(text: string): string {
  let out = '';
  for (const m of text.matchAll(TAG_CHARS)) {
    const cp = m[0].codePointAt(0)! - 0xe0000;
    if (cp >= 0x20 && cp < 0x7f) out += String.fromCharCode(cp);
  }
  return out;
}

/**
 * Folds text for detection: NFKC, invisible characters removed, confusable letters mapped to
 * Latin, lower case, leetspeak tokens mapped to letters, spaced-out letters joined, whitespace
 * collapsed.
 */
export function foldText(text: string): string {
  let t = text;
  if (NON_ASCII.test(t)) {
    t = t.normalize('NFKC');
    t = t.replace(INVISIBLE, '').replace(TAG_CHARS, '');
    // Only tokens that already mix in Latin letters: real Cyrillic or Greek words stay intact.
    if (CONFUSABLE_TEST.test(t))
      t = t.replace(MIXED_TOKEN, (tok) => (/[A-Za-z]/.test(tok) ? tok.replace(CONFUSABLE_RE, (c) => CONFUSABLES[c] ?? c) : tok));
  }
  t = t.toLowerCase();
  if (LEET_HINT.test(t))
    t = t.replace(LEET_TOKEN, (tok) => (/^[0-9.$@]+$/.test(tok) ? tok : tok.replace(/[013457@$]/g, (c) => LEET[c] ?? c)));
  if (SPACED_HINT.test(t)) t = t.replace(SPACED_LETTERS, (run) => run.replace(/ /g, ''));
  return WHITESPACE_HINT.test(t) ? t.replace(/\s+/g, ' ') : t;
}
