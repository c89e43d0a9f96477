import { allowAllGuardrail as createAllowAll } from '@baton/manifest/testing';

/** The public allow-all test guardrail (`@baton/manifest/testing`), built once for these tests (delegation refuses to run without one). */
export const allowAllGuardrail = createAllowAll();
