/**
 * The built-in detectors wrapped as {@link Detector}s for one policy, in the order the engine runs
 * them (which is also the order of an answer's findings): secrets, canaries, system-prompt leaks,
 * exfiltration links, prompt injection, PII. Tool policy is a detector too, but the engine calls
 * it only for a sink-tool call on a tainted thread (its state lives outside the content decision).
 */
import { detectCanaries } from './detectors/canary.js';
import { detectExfiltration } from './detectors/exfil.js';
import {
  INJECTION_GREY_THRESHOLDS,
  INJECTION_THRESHOLDS,
  detectInjection,
  locateInjection,
  type InjectionActionType,
} from './detectors/injection.js';
import { detectPii, type PiiType } from './detectors/pii.js';
import { detectSecrets, NAME_KEYED_SEVERITY } from './detectors/secrets.js';
import { detectSystemPromptLeak, type SystemPromptIndex } from './detectors/system-prompt-leak.js';
import type { DetectedSpan } from './detectors/types.js';
import { NOTHING, type ActionType, type Detector, type DetectorInput, type DetectorOutput, type DetectorVerdict } from './detector.js';
import { reasonFor } from './engine-reasons.js';
import type { Field } from './payload.js';
import type { PathNode } from './payload-path.js';
import { ADDRESSING_PII_TYPES, type Policy } from './policy/schema.js';
import { placeholderFor, type Replacement } from './redact.js';
import { detectFolded } from './text/fold-map.js';
import { stripInvisible } from './text/normalize.js';

const ALL_TYPES: readonly ActionType[] = ['AGENT_INPUT', 'AGENT_RESPONSE', 'TOOL_CALL', 'TOOL_OUTPUT', 'AGENT_HANDOFF'];
const ADDRESSING: ReadonlySet<string> = new Set(ADDRESSING_PII_TYPES);

/** What the built-in detectors need beyond the policy. */
export interface BuiltInDetectorOptions {
  /** Every canary token (policy and option). */
  canaries: readonly string[];
  /** The indexed system prompts (policy and option). */
  promptIndex: SystemPromptIndex;
}

/** The policy's action for a detector and action type (`AGENT_INPUT` → `section.agent_input`). */
function actionFor(section: object, type: ActionType): 'ALLOW' | 'MODIFY' | 'BLOCK' {
  return (section as Record<string, 'ALLOW' | 'MODIFY' | 'BLOCK'>)[type.toLowerCase()]!;
}

/** The action types a policy section does not ALLOW. */
function inspectedBy(section: object): ReadonlySet<ActionType> {
  return new Set(ALL_TYPES.filter((t) => actionFor(section, t) !== 'ALLOW'));
}

function replaced(detector: string, spans: readonly DetectedSpan[]): Replacement[] {
  return spans.map((s) => ({ start: s.start, end: s.end, with: placeholderFor(detector, s.type) }));
}

/** Redact (MODIFY) or refuse (BLOCK) a field's spans, with the reason for that decision. */
function redactOrBlock(
  detector: string,
  decision: 'MODIFY' | 'BLOCK',
  modifyReason: 'SECRET_REDACTED' | 'EXFILTRATION_LINK_REMOVED' | 'PII_REDACTED',
  spans: DetectedSpan[],
): DetectorVerdict {
  return { decision, reason: reasonFor(decision, modifyReason), detector, spans, replacements: replaced(detector, spans) };
}

/** Exfiltration spans of a field, shared by the exfiltration and injection detectors. */
function exfilOf(input: DetectorInput, allowedDomains: readonly string[]): DetectedSpan[] {
  return input.shared('exfiltration', () => detectExfiltration(input.text, { allowedDomains }));
}

/** The top-level argument name a TOOL_CALL field sits under (`/function/arguments/<name>…`), if any. */
function topArgumentOf(node: PathNode | undefined): string | undefined {
  let top: PathNode | undefined;
  for (let n = node; n; n = n.parent) {
    if (n.parent?.segment === 'arguments' && n.parent.parent?.segment === 'function' && n.parent.parent.parent === undefined) top = n;
  }
  return top === undefined ? undefined : String(top.segment);
}

/**
 * Secrets: never let through (MODIFY or BLOCK on every action type). A value found only under a
 * credential name (severity NAME_KEYED_SEVERITY) follows `secrets.name_keyed`: MODIFY (default)
 * redacts it even where the action type's secrets action is BLOCK, so an unverified look-alike
 * costs the value, not the whole request.
 */
export function secretsDetector(policy: Policy): Detector {
  const disabledRules = new Set(policy.secrets.disabled_rules);
  return {
    name: 'secrets',
    actionTypes: new Set(ALL_TYPES),
    redacts: true,
    inspect(input) {
      // The member a value sits under (through array indices: `{"api_keys": ["…"]}`), as a reader
      // sees it: `pass\u200bword` is still "password".
      let node = input.field.node;
      while (node && typeof node.segment === 'number') node = node.parent;
      const memberName =
        !input.field.isKey && typeof node?.segment === 'string' ? stripInvisible(node.segment.slice(-80)).normalize('NFKC') : undefined;
      const spans = detectFolded(input.text, (t) => detectSecrets(t, { disabledRules, memberName }), input.folded());
      if (spans.length === 0) return NOTHING;
      const action = actionFor(policy.secrets, input.request.action_type) as 'MODIFY' | 'BLOCK';
      const nameKeyedAction = policy.secrets.name_keyed === 'MODIFY' ? 'MODIFY' : action;
      const verified = spans.filter((s) => s.severity !== NAME_KEYED_SEVERITY);
      const nameKeyed = spans.filter((s) => s.severity === NAME_KEYED_SEVERITY);
      const verdicts: DetectorVerdict[] = [];
      if (verified.length > 0) verdicts.push(redactOrBlock('secrets', action, 'SECRET_REDACTED', verified));
      if (nameKeyed.length > 0) verdicts.push(redactOrBlock('secrets', nameKeyedAction, 'SECRET_REDACTED', nameKeyed));
      return { verdicts };
    },
  };
}

/** Canary tokens leaving through a response, tool call or handoff. */
export function canaryDetector(canaries: readonly string[]): Detector {
  const list = [...canaries];
  return {
    name: 'canary',
    actionTypes: new Set<ActionType>(['AGENT_RESPONSE', 'TOOL_CALL', 'AGENT_HANDOFF']),
    redacts: false,
    inspect(input) {
      const spans = detectFolded(input.text, (t) => detectCanaries(t, list), input.folded());
      return spans.length === 0 ? NOTHING : { verdicts: [{ decision: 'BLOCK', reason: 'CANARY_LEAK', spans, replacements: [] }] };
    },
  };
}

/** Verbatim system-prompt fragments leaving through a response or tool call. */
export function systemPromptLeakDetector(index: SystemPromptIndex): Detector {
  return {
    name: 'system_prompt_leak',
    actionTypes: new Set<ActionType>(['AGENT_RESPONSE', 'TOOL_CALL']),
    redacts: false,
    inspect(input) {
      const spans = detectSystemPromptLeak(input.text, index);
      return spans.length === 0 ? NOTHING : { verdicts: [{ decision: 'BLOCK', reason: 'SYSTEM_PROMPT_LEAK', spans, replacements: [] }] };
    },
  };
}

/**
 * Exfiltration links in a response, where they are rendered (images per `exfiltration.images`,
 * links per `exfiltration.links`). Elsewhere a link is an instruction: the injection detector
 * reports it; every match still counts against the budget here.
 */
export function exfiltrationDetector(policy: Policy): Detector {
  const allowedDomains = policy.exfiltration.allowed_domains.map((d) => d.toLowerCase());
  return {
    name: 'exfiltration',
    actionTypes: new Set(ALL_TYPES),
    redacts: true,
    inspect(input) {
      const exfil = exfilOf(input, allowedDomains);
      if (input.request.action_type !== 'AGENT_RESPONSE') return { verdicts: [], matches: exfil.length };
      const verdicts: DetectorVerdict[] = [];
      const images = exfil.filter((s) => s.type !== 'LINK_EXFIL' && s.type !== 'EXFIL_INSTRUCTION');
      const links = exfil.filter((s) => s.type === 'LINK_EXFIL');
      if (images.length > 0) verdicts.push(redactOrBlock('exfiltration', policy.exfiltration.images, 'EXFILTRATION_LINK_REMOVED', images));
      if (links.length > 0 && policy.exfiltration.links !== 'ALLOW')
        verdicts.push(redactOrBlock('exfiltration', policy.exfiltration.links, 'EXFILTRATION_LINK_REMOVED', links));
      return { verdicts, matches: exfil.length };
    },
  };
}

/**
 * Prompt injection, with the grey band (BLOCKed when the policy says so, else a report-only
 * low-severity finding); exfiltration instructions and links outside a response count as
 * injection too.
 */
export function injectionDetector(policy: Policy): Detector {
  const allowedDomains = policy.exfiltration.allowed_domains.map((d) => d.toLowerCase());
  // Per action type: the policy's `thresholds` entry, else its global `threshold`, else the shipped one.
  const thresholdsOf = (type: ActionType): { threshold: number; grey: number } => {
    const key = type.toLowerCase() as InjectionActionType;
    const threshold = policy.injection.thresholds?.[key] ?? policy.injection.threshold ?? INJECTION_THRESHOLDS[key];
    const grey = Math.min(threshold, policy.injection.grey_threshold ?? INJECTION_GREY_THRESHOLDS[key]);
    return { threshold, grey };
  };
  return {
    name: 'prompt_injection',
    actionTypes: inspectedBy(policy.injection),
    redacts: true,
    inspect(input): DetectorOutput {
      const { text } = input;
      const type = input.request.action_type;
      const { threshold, grey: greyThreshold } = thresholdsOf(type);
      const inj = detectInjection(text, { threshold, greyThreshold });
      const greyBlocks = inj.grey && policy.injection.grey_band === 'BLOCK';
      const flagged = inj.flagged || greyBlocks;
      const score = +inj.score.toFixed(4);
      const verdicts: DetectorVerdict[] = [];
      if (inj.grey && !greyBlocks) {
        verdicts.push({
          decision: 'ALLOW',
          reason: 'OK',
          spans: [{ type: 'PROMPT_INJECTION_SUSPECTED', start: 0, end: text.length, severity: 'low', score }],
          replacements: [],
        });
      }
      const exfilHere = type === 'AGENT_RESPONSE' ? [] : exfilOf(input, allowedDomains);
      if (!flagged && exfilHere.length === 0) return { verdicts, matches: 0 };
      const spans: DetectedSpan[] = flagged
        ? [{ type: 'PROMPT_INJECTION', start: 0, end: text.length, severity: greyBlocks ? 'medium' : 'high', score }]
        : [];
      spans.push(...exfilHere);
      let decision = actionFor(policy.injection, type) as 'MODIFY' | 'BLOCK';
      let replacements: Replacement[] = [];
      if (decision === 'MODIFY') {
        const located = flagged ? locateInjection(text, { threshold: greyBlocks ? greyThreshold : threshold }) : [];
        if (flagged && located.length === 0) decision = 'BLOCK';
        else {
          replacements = [
            ...located.map((s) => ({ ...s, with: placeholderFor('prompt_injection', 'PROMPT_INJECTION') })),
            ...replaced('exfiltration', exfilHere),
          ];
          if (located.length > 0)
            spans.splice(0, 1, ...located.map((s) => ({ type: 'PROMPT_INJECTION', ...s, severity: 'high' as const, score })));
        }
      }
      verdicts.push({
        decision,
        reason: decision === 'MODIFY' ? 'INJECTION_REMOVED' : flagged ? 'PROMPT_INJECTION' : 'EXFILTRATION_LINK',
        detector: flagged ? 'prompt_injection' : 'exfiltration',
        spans,
        replacements,
      });
      return { verdicts, matches: spans.length };
    },
  };
}

/** Personal data; a TOOL_CALL's addressing arguments (policy `pii.addressing_fields`) may carry addresses. */
export function piiDetector(policy: Policy): Detector {
  const types = new Set<PiiType>(policy.pii.types);
  const addressingFields = new Map(Object.entries(policy.pii.addressing_fields).map(([tool, names]) => [tool, new Set(names)]));
  const isAddressingField = (toolName: string, field: Field): boolean => {
    const names = addressingFields.get(toolName);
    if (!names || field.isKey) return false;
    const top = topArgumentOf(field.node);
    return top !== undefined && names.has(top);
  };
  return {
    name: 'pii',
    actionTypes: inspectedBy(policy.pii),
    redacts: true,
    inspect(input) {
      const { request } = input;
      const addressing = request.action_type === 'TOOL_CALL' && isAddressingField(request.payload.function.name, input.field);
      const spans = detectFolded(input.text, (t) => detectPii(t, types), input.folded()).filter(
        (span) => !addressing || !ADDRESSING.has(span.type),
      );
      if (spans.length === 0) return NOTHING;
      return { verdicts: [redactOrBlock('pii', actionFor(policy.pii, request.action_type) as 'MODIFY' | 'BLOCK', 'PII_REDACTED', spans)] };
    },
  };
}

/** Tool policy: the engine gives it the tool name of a sink-tool call on a tainted thread. */
export const toolPolicyDetector: Detector = {
  name: 'tool_policy',
  actionTypes: new Set<ActionType>(['TOOL_CALL']),
  redacts: false,
  inspect(input) {
    return {
      verdicts: [
        {
          decision: 'BLOCK',
          reason: 'TOOL_POLICY_VIOLATION',
          spans: [{ type: 'UNTRUSTED_SOURCE_TO_SINK', start: 0, end: input.text.length, severity: 'high' }],
          replacements: [],
        },
      ],
    };
  },
};

/** The built-in content detectors for a policy, in the engine's order. */
export function builtInDetectors(policy: Policy, options: BuiltInDetectorOptions): Detector[] {
  return [
    secretsDetector(policy),
    canaryDetector(options.canaries),
    systemPromptLeakDetector(options.promptIndex),
    exfiltrationDetector(policy),
    injectionDetector(policy),
    piiDetector(policy),
  ];
}
