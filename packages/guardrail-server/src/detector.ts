/**
 * The engine's detector interface (internal: not exported from the package). The engine runs a
 * list of detectors, in order, over every text field of a request and turns their verdicts into
 * one decision through the reason table (`engine-reasons.ts`). The built-in detectors are wrapped
 * in `engine-detectors.ts`.
 */
import type { GuardrailRequest } from '@baton/manifest';
import type { DetectedSpan } from './detectors/types.js';
import type { ReasonCode } from './engine-reasons.js';
import type { Field } from './payload.js';
import type { Replacement } from './redact.js';
import type { FoldedView } from './text/fold-map.js';

export type ActionType = GuardrailRequest['action_type'];

/** One text field of a request, as a detector sees it. */
export interface DetectorInput {
  /** The whole request (action type, tool name…). */
  readonly request: GuardrailRequest;
  /** The field: a string value or an object key somewhere in the payload. */
  readonly field: Field;
  /** `field.text`, never empty. */
  readonly text: string;
  /** The text as a reader sees it (invisible characters gone, confusables folded); computed once per field. */
  folded(): FoldedView | undefined;
  /** A value computed once per field and shared between detectors (e.g. exfiltration spans). */
  shared<T>(key: string, compute: () => T): T;
}

/** What a detector concluded about one field. */
export interface DetectorVerdict {
  /** BLOCK or MODIFY; ALLOW is a report-only finding that rides along with any decision. */
  decision: 'ALLOW' | 'MODIFY' | 'BLOCK';
  /** The reason code (a key of the reason table); `OK` for a report-only finding. */
  reason: ReasonCode | 'OK';
  /** The `detector` of the findings; default: the detector's name. */
  detector?: string;
  spans: DetectedSpan[];
  /** For MODIFY: replacements within the field's text (a detector whose `redacts` is false returns none). */
  replacements: Replacement[];
}

/** A detector's answer for one field. */
export interface DetectorOutput {
  verdicts: DetectorVerdict[];
  /**
   * Matches counted against the request's findings budget. Default: the spans of the non-ALLOW
   * verdicts. A detector whose matches don't all become findings here says how many it made.
   */
  matches?: number;
}

/** One detector the engine runs over every text field of the action types it inspects. */
export interface Detector {
  /** The `detector` of its findings, e.g. `secrets`. */
  readonly name: string;
  /** The action types it inspects (a policy that sets its action to ALLOW leaves the type out). */
  readonly actionTypes: ReadonlySet<ActionType>;
  /** Whether its verdicts can be MODIFY (redaction); false: BLOCK or report only. */
  readonly redacts: boolean;
  /** Inspects one field. A throw fails the request closed (BLOCK `DETECTOR_FAILED`). */
  inspect(input: DetectorInput): DetectorOutput;
}

/** The empty answer. */
export const NOTHING: DetectorOutput = Object.freeze({ verdicts: [] as DetectorVerdict[] }) as DetectorOutput;
