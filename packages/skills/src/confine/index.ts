export {
  CONFINEMENT_MECHANISMS,
  grantFor,
  type ConfinementInfo,
  type ConfinementMechanism,
  type ConfinementPreference,
  type SkillGrant,
} from './types.js';
export { detectConfinement } from './detect.js';
export { confineCommand, type ConfineCommandOptions } from './wrap.js';
export { markerEnv, sweepMarked, SANDBOX_MARKER_PREFIX } from './sweep.js';
