/**
 * The shape of a secret rule and the stand-in check shared by every rule file (kept apart so the
 * rule files do not import each other).
 */

export interface SecretRule {
  id: string;
  re: RegExp;
  group?: number;
  minEntropy?: number;
  /** Literal, lower-case substrings one of which must occur in the text for the rule to run. */
  keywords?: string[];
  /** Extra check on the value (after placeholder and entropy checks). */
  check?: (value: string) => boolean;
  /** Extra check on the text around the value (`start` is the value's offset). */
  context?: (text: string, start: number) => boolean;
}

const TRIVIAL = /^(?:user(?:name)?|pass(?:word|wd|phrase)?|passwd|pwd|secret|test|token|admin|root|guest|xxx|yyy|foo|bar|baz|changeme|mypassword|example|demo|dbuser|apiuser|login|\[[^\]]*\]|\{[^}]*\})$/i;
// A stand-in word with decoration ("password1", "Secret_123!", "not-set", "todo"): what tutorials
// and fixtures write where a credential goes.
const STAND_IN = /^(?:(?:my|the|your|some|default|test|dummy|fake|sample|example|demo)?[_-]?(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|api[_-]?key|admin|root|guest|user|test|changeme|default|demo|letmein|qwerty)[\W_]{0,2}\d{0,4}[\W_]{0,2}|not[_ -]?set|unset|none|empty|todo|tbd|fixme|n\/a|required|optional|hidden|masked)$/i;

/** True when a credential value is a stand-in (`password`, `test`, `[PASSWORD]`, `{pass}`, `$VAR`). */
export function isTrivialCredential(v: string): boolean {
  return v.length < 4 || TRIVIAL.test(v) || STAND_IN.test(v) || isFillerRun(v) || /^\$|^%|^\{\{|^<|\$\{/.test(v);
}

/**
 * True when `v` is filler rather than random: a run of `minRun` characters that each follow the
 * last in the alphabet or on the digit row ("abcdef", "123456"; with the default 6, also keyboard
 * rows such as "qwerty"), or a short unit repeated ("1234abcd1234abcd"). A random 20-character
 * token holds such a run with negligible probability.
 */
export function isFillerRun(v: string, minRun = 6): boolean {
  if (minRun <= 6 && /(?:qwerty|asdfgh|zxcvbn)/i.test(v)) return true;
  let run = 1;
  for (let i = 1; i < v.length; i++) {
    const d = v.charCodeAt(i) - v.charCodeAt(i - 1);
    run = d === 1 && /[A-Za-z0-9]/.test(v[i]!) ? run + 1 : 1;
    if (run >= minRun) return true;
  }
  return isRepeatedUnit(v);
}

/** True when `v` (12+ characters) is one unit of 1-16 characters repeated. */
export function isRepeatedUnit(v: string): boolean {
  return v.length >= 12 && /^(.{1,16}?)\1+$/.test(v);
}
