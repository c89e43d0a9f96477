/**
 * Secrets and credentials: provider token formats (secret-rules.ts, after gitleaks and
 * secretlint) plus secret-named assignments whose value has enough entropy. Placeholders
 * (`xxxx`, `<token>`, `${VAR}`, `changeme`) are not secrets.
 *
 * Two grades of finding. A provider's token shape, a private key, a password inside a URI or
 * connection string is a credential: severity `critical`. A value found only because a name says
 * "credential" (`api_key = "…random…"`, `password: …`) is credential-like but unverified — often a
 * real secret, sometimes a test fixture, an ID or another provider's near miss: severity `high`
 * (NAME_KEYED_SEVERITY), which the engine redacts instead of refusing by default
 * (`secrets.name_keyed`).
 */
import { Buffer } from 'node:buffer';
import { isRepeatedUnit } from './secret-rule-types.js';
import { SECRET_RULES, type SecretRule } from './secret-rules.js';
import type { DetectedSpan } from './types.js';

/** Shannon entropy of `s` in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const PLACEHOLDER =
  /(?:x{5,}|X{5,}|\[redacted|\*{3,}|#{3,}|\.{3}|<[^>]{0,40}>|\$\{|\{\{|%\(|(?<![\w$])\$[A-Z_]{3,}|your[_-]?(?:api[_-]?)?(?:key|token|secret|password)|changeme|placeholder|example[_-]?(?:key|token|secret)|redacted|dummy|sample|insert[_-]?here|process\.env|os\.environ|getenv)/i;

function valueOf(m: RegExpMatchArray, rule: SecretRule): { value: string; start: number } {
  const g = rule.group ?? 0;
  if (g === 0) return { value: m[0], start: m.index! };
  const value = m[g] ?? m[0];
  const offset = m[0].lastIndexOf(value);
  return { value, start: m.index! + Math.max(0, offset) };
}

// The identifier characters right before `index` (at most 40): the start of a variable name.
function nameBefore(text: string, index: number): string {
  let s = index;
  while (s > 0 && index - s < 40 && /[\w.-]/.test(text[s - 1]!)) s--;
  return text.slice(s, index);
}

function decodesToProse(value: string): boolean {
  if (!/^[A-Za-z0-9+/]{16,}={0,2}$/.test(value)) return false;
  const d = Buffer.from(value, 'base64').toString('utf8');
  return /^[\x20-\x7e]+$/.test(d) && /^[a-z ]+$/i.test(d) && d.includes(' ');
}

function genericValueOk(name: string, value: string): boolean {
  // Names that hold identifiers or public material, not secrets.
  if (
    /(?:id|ids|name|url|uri|path|file|type|public[\w]*|publishable[\w]*|bucket[\w]*|vault[\w]*|csrf[\w]*|meshing|notes)$/i.test(
      name.replace(/["'`\s]/g, ''),
    )
  )
    return false;
  // Keys of data structures and stores, and words built on "token" (NLP tokenizers, counts):
  // names that hold hashes and identifiers, not credentials.
  if (
    /(?:cache|sort|partition|primary|foreign|idempotency|dedupe?|object|map|hash|row|range|routing|lookup|composite|unique|index|shard|cursor|i18n|translation|hot|shortcut)[_.-]?key$/i.test(
      name.replace(/["'`\s]/g, ''),
    ) ||
    /token(?:iz|s?[_.-]?(?:count|limit|usage|len|length|budget|estimate))/i.test(name)
  )
    return false;
  if (/public|publishable|csrf|xsrf/i.test(name) || /^pk_(?:test|live)_/.test(value) || value.includes('EXAMPLE')) return false;
  if (/^(?:xox|gh[pousr]_|sk[-_]|glpat-)/.test(value)) return false; // a provider rule's job
  if (/^[A-Za-z]\w*$/.test(value) && value.includes('_') && shannonEntropy(value) < 4) return false; // an identifier
  if (/[A-Za-z]{3,}-[A-Za-z]{3,}/.test(value) && /\d+\.\d+/.test(value)) return false; // a package coordinate
  if (decodesToProse(value)) return false;
  // Identifiers, dotted names and paths are not secrets: a secret mixes letters and digits.
  if (!/\d/.test(value) || !/[A-Za-z]/.test(value)) return false;
  if (/^[A-Za-z_][\w]*\.[A-Za-z_][\w.]*$/.test(value)) return false;
  // An expression in (minified) code: `e.token&143360`, `w!==1077936157&&…`.
  if (/^[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*[&|!=<>?]|===|!==|&&/.test(value)) return false;
  if (/^(?:true|false|null|none|undefined)$/i.test(value)) return false;
  // The value is itself a setting (`password_policy: min_length=12`), not a credential.
  if (/^[A-Za-z_]{2,30}=\d{1,6}$/.test(value)) return false;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return true;
  if (/\.(?:pem|key|json|ya?ml|txt|crt|p12|pfx|env)$/i.test(value)) return false;
  if (/^v?\d+(?:\.\d+)+$/.test(value)) return false;
  return true;
}

// All rule keywords in one case-insensitive scan (longest first at each position). A keyword found
// also implies every keyword it contains ("xoxb-" implies "xox").
const ALL_KEYWORDS = [...new Set(SECRET_RULES.flatMap((r) => r.keywords ?? []))].sort((a, b) => b.length - a.length);
const KEYWORD_RE = new RegExp(ALL_KEYWORDS.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
const IMPLIED = new Map(ALL_KEYWORDS.map((k) => [k, ALL_KEYWORDS.filter((o) => k.includes(o))]));

function keywordsIn(text: string): Set<string> {
  const found = new Set<string>();
  KEYWORD_RE.lastIndex = 0;
  // Step one character past each match start, so overlapping keywords are all seen.
  for (let m = KEYWORD_RE.exec(text); m !== null; m = KEYWORD_RE.exec(text)) {
    const k = m[0].toLowerCase();
    if (!found.has(k)) for (const implied of IMPLIED.get(k) ?? [k]) found.add(implied);
    KEYWORD_RE.lastIndex = m.index + 1;
  }
  return found;
}

/** Severity of a span found only by a name-keyed rule (the rest are `critical`). */
export const NAME_KEYED_SEVERITY = 'high';

/** Ids of the rules that key on a credential name rather than a token's own shape. */
export const NAME_KEYED_SECRET_RULES: readonly string[] = [...new Set(SECRET_RULES.filter((r) => r.nameKeyed).map((r) => r.id))];

/** Which rules to run, and extra options. */
export interface DetectSecretsOptions {
  /** Rule ids to skip. */
  disabledRules?: ReadonlySet<string>;
  /**
   * The object member name `text` is the value of (a JSON key in tool-call arguments or handoff
   * state): name-keyed rules read it as the value's variable name, so `{"password": "…"}` is
   * judged like `password = "…"`. Only its last 80 characters are used.
   */
  memberName?: string;
}

// A member name worth reading as a variable name: it holds a credential word, followed by at most
// 64 name characters (as the name-keyed rules read them; the name is cut to its last 80 first).
const CREDENTIAL_NAME = /(?:pass|pwd|secret|token|key|credential|auth)[\w.-]{0,64}$/i;

/**
 * Finds secret spans in `text`. Overlapping hits collapse to the widest span; a merged span is
 * `critical` with the provider rule's id when any rule in it is not name-keyed.
 */
export function detectSecrets(text: string, options: DetectSecretsOptions = {}): DetectedSpan[] {
  const direct = scan(text, options.disabledRules);
  const name = options.memberName?.slice(-80);
  // A one-line value under a credential-named member: scan it again as `name="value"` and keep the
  // hits inside the value (the member name itself is a key field, scanned on its own).
  if (name === undefined || !CREDENTIAL_NAME.test(name) || text.length > 1000 || /[\r\n"]/.test(text)) return direct;
  const prefix = `${name.replace(/["\r\n]/g, '')}="`;
  const named = scan(`${prefix}${text}"`, options.disabledRules)
    .filter((s) => s.start >= prefix.length && s.end <= prefix.length + text.length)
    .map((s) => ({ ...s, start: s.start - prefix.length, end: s.end - prefix.length }));
  return named.length === 0 ? direct : mergeSpans([...direct, ...named]);
}

function scan(text: string, disabledRules: ReadonlySet<string> | undefined): DetectedSpan[] {
  const found: DetectedSpan[] = [];
  if (text.length < 8) return found;
  const present = keywordsIn(text);
  for (const rule of SECRET_RULES) {
    if (disabledRules?.has(rule.id)) continue;
    if (rule.keywords && !rule.keywords.some((k) => present.has(k))) continue;
    rule.re.lastIndex = 0;
    let n = 0;
    for (const m of text.matchAll(rule.re)) {
      if (++n > 256) break;
      const { value, start } = valueOf(m, rule);
      if (PLACEHOLDER.test(value) || /^(?:\.\.|\[redacted|-?#{3})/i.test(text.slice(start + value.length, start + value.length + 12)))
        continue;
      // A provider prefix on one unit repeated ("sk_live_0000…", "abcabc…") is a stand-in; the
      // generic rules hold their values to the stricter isTrivialCredential.
      if (isRepeatedUnit(value.replace(/^(?:[A-Za-z][A-Za-z0-9]{1,9}[_-]){1,3}/, ''))) continue;
      if (rule.check && !rule.check(value)) continue;
      if (rule.context && !rule.context(text, start)) continue;
      if (rule.minEntropy !== undefined && shannonEntropy(value) < rule.minEntropy) continue;
      if (rule.id === 'generic-secret-assignment' && !genericValueOk(nameBefore(text, m.index) + (m[1] ?? ''), value)) continue;
      found.push({ type: rule.id, start, end: start + value.length, severity: rule.nameKeyed ? NAME_KEYED_SEVERITY : 'critical' });
    }
  }
  return mergeSpans(found);
}

function mergeSpans(spans: DetectedSpan[]): DetectedSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: DetectedSpan[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) {
      last.end = Math.max(last.end, s.end);
      // A provider's shape anywhere in the merged span makes it a verified credential.
      if (s.severity === 'critical' && last.severity !== 'critical') Object.assign(last, { type: s.type, severity: 'critical' });
      continue;
    }
    out.push({ ...s });
  }
  return out;
}
