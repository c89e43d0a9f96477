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
  /**
   * The rule keys on a credential *name* (`password=`, `api_key:`, `<secret>`), not on a token's
   * own shape: what it finds is credential-like but unverified (see NAME_KEYED_SEVERITY).
   */
  nameKeyed?: true;
}

const TRIVIAL =
  /^(?:user(?:name)?|pass(?:word|wd|phrase)?|passwd|pwd|secret|test|token|admin|root|guest|xxx|yyy|foo|bar|baz|changeme|mypassword|example|demo|dbuser|apiuser|login|\[[^\]]*\]|\{[^}]*\})$/i;
// A stand-in word with decoration ("password1", "Secret_123!", "not-set", "todo"): what tutorials
// and fixtures write where a credential goes.
const STAND_IN =
  /^(?:(?:my|the|your|some|default|test|dummy|fake|sample|example|demo)?[_-]?(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|api[_-]?key|admin|root|guest|user|test|changeme|default|demo)[\W_]{0,2}\d{0,4}[\W_]{0,2}|not[_ -]?set|unset|none|empty|todo|tbd|fixme|n\/a|required|optional|hidden|masked)$/i;

/** True when a credential value is a stand-in (`password`, `test`, `[PASSWORD]`, `{pass}`, `$VAR`). */
export function isTrivialCredential(v: string): boolean {
  return v.length < 4 || TRIVIAL.test(v) || STAND_IN.test(v) || isRepeatedUnit(v) || /^\$|^%|^\{\{|^<|\$\{/.test(v);
}

/** True when `v` (12+ characters) is one unit of 1-16 characters repeated. */
export function isRepeatedUnit(v: string): boolean {
  return v.length >= 12 && /^(.{1,16}?)\1+$/.test(v);
}
