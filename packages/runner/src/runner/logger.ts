import type { BatonLogger } from '@baton/manifest/contracts';

/** Minimal structured logger: the one contract, `@baton/manifest/contracts`' `BatonLogger` (@baton/tracing's `createLogger` fits). */
export type RunnerLogger = BatonLogger;

export const noopLogger: RunnerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
