/**
 * Exfiltration links: URLs that would carry conversation data to an outside host when rendered
 * (Markdown or HTML images, CSS url(), iframes) or followed (links), `javascript:` URLs and
 * inline event handlers, and texts that instruct a model to produce such a URL.
 *
 * A URL "carries data" when a query value, path segment or subdomain label holds an encoded
 * payload (base64, hex, heavy percent- or plus-encoding), a template placeholder
 * (`[DATA]`, `{summary}`, `USER_MESSAGE_ENCODED`), PII or a sensitive parameter name, or when the
 * URL ends in an empty parameter waiting for data. Hosts on the allowlist are never flagged;
 * URLs in inline code or fenced code blocks are not rendered and not flagged.
 */
import { Buffer } from 'node:buffer';
import { detectPii } from './pii.js';
import type { DetectedSpan } from './types.js';

export type ExfilType = 'IMAGE_EXFIL' | 'LINK_EXFIL' | 'SCRIPT_URL' | 'EXFIL_INSTRUCTION';

/** Options for {@link detectExfiltration}. */
export interface DetectExfilOptions {
  /** Hosts (and their subdomains) that may receive data, e.g. `docs.example.com`. */
  allowedDomains?: readonly string[];
}

const URL_RE = /\b(?:https?:\/\/|javascript:|data:text\/html)[^\s<>"'`)]{0,2048}/gi;
const CODE_SPAN = /```[^]*?```|`[^`\n]{1,400}`/g;
const IMAGE_CONTEXT =
  /(?:!\[[^\]\n]{0,200}\]\(\s*<?|<(?:img|iframe|image|source|video|audio|embed|object|input|link|script|frame)\b[^>]{0,300}?(?:src|href|data|srcset|poster|background)\s*=\s*["']?|url\(\s*["']?)$/i;
const LINK_CONTEXT = /(?:\]\(\s*<?|<a\b[^>]{0,300}?href\s*=\s*["']?)$/i;
// Reference-style images: full `![alt][ref]`, collapsed `![alt][]` and shortcut `![alt]` (CommonMark).
const IMAGE_REF = /!\[([^\]\n]{1,200})\](?:\[([^\]\n]{0,100})\]|(?![([:]))/g;
const REF_DEF = /^[ \t]{0,3}\[([^\]\n]{1,100})\]:[ \t]*/;
const EVENT_HANDLER = /<[a-z][^>]{0,300}?\bon(?:error|load|mouseover|focus|click)\s*=/gi;
const PLACEHOLDER = /\[[A-Z][A-Z_ ]{1,30}\]|\{[a-z_]{2,30}\}|\b[A-Z]{2,}(?:_[A-Z]{2,}){2,}\b|\$\{?[A-Z_]{3,}\}?|<[A-Z_]{3,}>|=\.{3}/;
const SENSITIVE_PARAM =
  /^(?:ssn|cc|card|cardnumber|password|passwd|pwd|secret|token|apikey|api_key|key|history|conversation|chat|summary|prompt|cookie|session|memory|context|creds?|credentials?|email|phone|address|dob)$/i;
const INSTRUCTION =
  /\b(?:replac(?:e|ing)|fill|substitut(?:e|ing)|whereas|where)\s+(?:\[[A-Z_]+\]|\{[a-z_]+\}|[A-Z]{2,}(?:_[A-Z]{2,})+|\.\.\.)|\b(?:append|add|put|include|encode|attach)\b[^.\n]{0,120}\b(?:to|after|in|into|at the end of)\b[^.\n]{0,40}(?:url|link|image|img|https?:\/\/)|\b(?:url|link|image|pixel)[^.\n]{0,60}\b(?:followed by|plus|\+ )[^.\n]{0,60}\b(?:user|conversation|chat|message|summary|address|email|password|secret|keys?|history)\b/i;
const BASE64ISH = /^[A-Za-z0-9+/_-]{20,}={0,2}$/;
const HEX = /^[0-9a-fA-F]{24,}$/;

// Link labels match case-insensitively with inner whitespace collapsed (CommonMark).
function refLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase();
  return allowed.some((d) => h === d || h.endsWith(`.${d}`));
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
}

// A raw (still encoded) URL part that decodes to several words of text or to PII.
function carriesText(part: string): boolean {
  const decoded = safeDecode(part);
  if (decoded === part) return false;
  return decoded.split(/\s+/).filter(Boolean).length >= 4 || detectPii(decoded).length > 0;
}

// Character references in a URL are decoded before it is fetched (HTML attributes and CommonMark
// link destinations alike): `?d=my&#32;secret&#32;plan` sends "my secret plan".
const CHAR_REF = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(amp|quot|apos|lt|gt|nbsp));/gi;
const NAMED_REF: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ' };

function decodeCharRefs(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(CHAR_REF, (m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return NAMED_REF[name.toLowerCase()] ?? m;
    const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
}

// An image file name that is short base64 of text ("/aGVsbG8gd29ybGQ=.png" → "hello world").
function base64Text(seg: string): boolean {
  if (seg.length < 16 || !BASE64ISH.test(seg)) return false;
  const d = Buffer.from(seg.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  return readable(d) && /[a-z]{2,}[\s@.:,][a-z0-9]{2,}/i.test(d);
}

function readable(s: string): boolean {
  return /^[\x20-\x7e\n]+$/.test(s) && /[a-z]{3}/i.test(s);
}

function looksEncoded(value: string): boolean {
  // Hex that decodes to text is data; a digest (a Gravatar's MD5, a content hash) decodes to noise.
  if (HEX.test(value)) return value.length % 2 === 0 && readable(Buffer.from(value, 'hex').toString('latin1'));
  if (BASE64ISH.test(value) && /[A-Z]/.test(value) && /[a-z]/.test(value) && /\d/.test(value)) return true;
  if (BASE64ISH.test(value) && value.length >= 24) {
    const d = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (readable(d)) return true;
  }
  return false;
}

// Image query parameters that size, format or version a picture: their values are not data.
const RENDER_PARAM =
  /^(?:w|h|width|height|size|s|sz|q|quality|fit|crop|auto|fm|format|dpr|v|ver|version|style|logo|logocolor|logowidth|color|colorA|colorB|label|labelcolor|cache|cb|t|ts|theme|lang|locale|hl|mode|scale|rect|bg|background|border|radius|fill|trim|blur|sat|sharp|ar|aspect|maxage|max_age|branch|link|icon|compact|raw|sanitize|display|subset|family|ixlib|ixid|token_type|tag|sort|page|per_page|utm_[a-z]+)$/i;
const BADGE_PARAM = /^(?:label|logo|logocolor|labelcolor|style|color|colorA|colorB|message|cacheSeconds)$/i;
// Parameter names that say the value is about a person or the conversation.
const CONTENT_PARAM =
  /^(?:u|user|username|usr|uid|name|first|last|fullname|login|q|query|search|data|d|msg|message|content|body|note|notes|info|payload|text|txt|input|output|answer|reply|question|topic|subject|doc|document|file|filename|report|revenue|account|acct)$/i;

// Words in an image's query value: "quarterly+revenue", "jane", "Hello%20World".
function valueCarriesWords(name: string, value: string): boolean {
  const words = value.split(/[\s,;|]+/).filter((w) => /[A-Za-z]{3,}/.test(w));
  if (words.length >= 2) return true;
  if (CONTENT_PARAM.test(name) && words.length === 1 && /^[A-Za-z][A-Za-z'.-]{2,}$/.test(value.trim())) return true;
  return false;
}

/** Options for {@link urlCarriesData}. */
export interface UrlCarriesDataOptions {
  /**
   * The URL is fetched without a click (an image, iframe, CSS url()): any words in a query value
   * (other than sizing and format parameters) count as data, not only long or encoded values.
   */
  image?: boolean;
}

/** Why a URL carries data, or undefined when it does not. */
export function urlCarriesData(rawUrl: string, options: UrlCarriesDataOptions = {}): string | undefined {
  const raw = decodeCharRefs(rawUrl);
  if (/^javascript:|^data:text\/html/i.test(raw)) return 'script';
  if (PLACEHOLDER.test(raw)) return 'placeholder';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (raw.endsWith('=')) return 'empty-parameter';
  // A path segment like /azure=[DATA] or /colab=... is a parameter in disguise.
  if (/\/[a-z]{2,12}=/i.test(url.pathname)) return 'path-parameter';
  for (const label of url.hostname.split('.').slice(0, -2)) {
    if (label.length >= 16 && /\d/.test(label) && /[a-z]/i.test(label)) return 'subdomain-payload';
  }
  for (const rawSeg of url.pathname.split('/')) {
    const seg = rawSeg.replace(/\.[A-Za-z0-9]{2,5}$/, ''); // "/<payload>.png"
    if (seg.length >= 32 && looksEncoded(seg)) return 'path-payload';
    if (seg.length >= 16 && carriesText(seg)) return 'path-payload';
  }
  for (const [name, value] of url.searchParams) {
    if (!value) continue;
    const trimmed = value.trim();
    if (/^(?:\{|\[\s*[[{"'\d])/.test(trimmed)) continue; // a JSON config (charts), not a payload
    if (SENSITIVE_PARAM.test(name) && trimmed.length >= 6) return 'sensitive-parameter';
    if (trimmed.split(/[\s=&:;,.]+/).some((t) => t.length >= 20 && looksEncoded(t))) return 'encoded-value';
    const words = trimmed.split(/\s+/).filter(Boolean).length;
    if ((raw.match(/%[0-9a-f]{2}/gi)?.length ?? 0) >= 4 && trimmed.length >= 24) return 'percent-encoded-text';
    if (words >= 6 || trimmed.length >= 80) return 'long-value';
    if (detectPii(trimmed).length > 0) return 'pii-value';
    // A sizing/format value is one token (`q=75`, `fit=crop`); `q=quarterly revenue` is words.
    // Badge text parameters (`label`, `logo`, `style`, `color`) are exempt even with spaces.
    if (options.image && !BADGE_PARAM.test(name) && !(RENDER_PARAM.test(name) && !/\s/.test(trimmed)) && valueCarriesWords(name, trimmed))
      return 'words-in-image-query';
  }
  // An image whose path spells out text ("/p/quarterly%20revenue.png", "/c/jane+doe+salary.gif").
  if (options.image) {
    for (const seg of url.pathname.split('/')) {
      if (base64Text(seg.replace(/\.[A-Za-z0-9]{2,5}$/, ''))) return 'path-payload';
      const decoded = safeDecode(seg);
      if (decoded !== seg && decoded.split(/\s+/).filter((w) => /[A-Za-z]{2,}/.test(w)).length >= 2) return 'words-in-image-path';
    }
  }
  return undefined;
}

/** Finds exfiltration spans in `text`. */
export function detectExfiltration(text: string, options: DetectExfilOptions = {}): DetectedSpan[] {
  const allowed = options.allowedDomains ?? [];
  const found: DetectedSpan[] = [];
  const hasUrl = /https?:\/\/|javascript:|data:text|url\(|<[a-z]/i.test(text);
  if (hasUrl) {
    // Code is shown, not rendered: blank it out (same length, so offsets stay valid).
    const visible = text.includes('`') ? text.replace(CODE_SPAN, (m) => ' '.repeat(m.length)) : text;
    const imageRefs = new Set<string>();
    for (const m of visible.matchAll(IMAGE_REF)) imageRefs.add(refLabel(m[2] || m[1]!));
    for (const m of visible.matchAll(URL_RE)) {
      const raw = /^javascript:/i.test(m[0]) ? m[0] : m[0].replace(/[.,;:!?]+$/, '');
      const start = m.index;
      const before = visible.slice(Math.max(0, start - 400), start);
      const lineStart = before.lastIndexOf('\n') + 1;
      const refDef = REF_DEF.exec(before.slice(lineStart));
      const isImage = IMAGE_CONTEXT.test(before) || (refDef !== null && imageRefs.has(refLabel(refDef[1]!)));
      const isLink = isImage || LINK_CONTEXT.test(before) || refDef !== null;
      let host = '';
      try {
        host = new URL(raw).hostname;
      } catch {
        host = '';
      }
      if (host && hostAllowed(host, allowed)) continue;
      const why = urlCarriesData(raw, { image: isImage });
      if (!why) continue;
      const type: ExfilType = why === 'script' ? 'SCRIPT_URL' : isImage ? 'IMAGE_EXFIL' : 'LINK_EXFIL';
      found.push({ type, start, end: start + raw.length, severity: type === 'LINK_EXFIL' && !isLink ? 'medium' : 'high' });
    }
    for (const m of visible.matchAll(EVENT_HANDLER))
      found.push({ type: 'SCRIPT_URL', start: m.index, end: m.index + m[0].length, severity: 'high' });
  }
  // Instructions to build such a URL, including ones split into quoted string fragments.
  const joined = text.includes('","') ? text.replace(/",\s*"/g, '').replace(/"/g, '') : text;
  if (joined !== text && found.length === 0) {
    const inner = detectExfiltration(joined, options);
    if (inner.length > 0) found.push({ type: 'EXFIL_INSTRUCTION', start: 0, end: text.length, severity: 'high' });
  }
  if (found.length === 0 && /https?:\/\/|!\[|<img|\b(?:url|image|link)\b/i.test(text)) {
    const m = INSTRUCTION.exec(text);
    if (m) found.push({ type: 'EXFIL_INSTRUCTION', start: m.index, end: m.index + m[0].length, severity: 'high' });
  }
  return found;
}
