import { BatonError, type ErrorKind } from '@baton/manifest/contracts';

/** Every code @baton/queue throws, with whose fault it is (the README's errors table lists each). */
export const QUEUE_ERROR_CODES = {
  QUEUE_CONFIG: 'usage',
  QUEUE_UNAVAILABLE: 'upstream',
  QUEUE_JOB_FAILED: 'upstream',
  QUEUE_TIMEOUT: 'upstream',
  QUEUE_INVALID_JOB: 'upstream',
} as const satisfies Record<string, ErrorKind>;
export type QueueErrorCode = keyof typeof QUEUE_ERROR_CODES;

/** Base class for @baton/queue errors; `code` is stable (`QUEUE_*`). */
export class QueueError extends BatonError<QueueErrorCode> {
  constructor(code: QueueErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, QUEUE_ERROR_CODES[code], message, options);
    this.name = 'QueueError';
  }
}

/** Configuration mistake (bad Redis URL, bad option): the caller's to fix. */
export class QueueConfigError extends QueueError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('QUEUE_CONFIG', message, options);
    this.name = 'QueueConfigError';
  }
}

/** Redis could not be reached or refused a command: an upstream fault, usually worth retrying. */
export class QueueUnavailableError extends QueueError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('QUEUE_UNAVAILABLE', message, options);
    this.name = 'QueueUnavailableError';
  }
}

/** A job failed on the workers after its retries (infrastructure, not a failed run or task). */
export class QueueJobFailedError extends QueueError {
  readonly jobId: string;
  constructor(jobId: string, message: string, options?: { cause?: unknown }) {
    super('QUEUE_JOB_FAILED', message, options);
    this.name = 'QueueJobFailedError';
    this.jobId = jobId;
  }
}

/** No worker finished the job within the wait limit (are any `baton worker` processes running?). */
export class QueueTimeoutError extends QueueError {
  readonly jobId: string;
  constructor(jobId: string, waitedMs: number) {
    super(
      'QUEUE_TIMEOUT',
      `job ${jobId} did not finish within ${waitedMs} ms; check that \`baton worker\` processes are running against this Redis`,
    );
    this.name = 'QueueTimeoutError';
    this.jobId = jobId;
  }
}

/** A job's data is not what this version of Baton writes (another version, or tampering). */
export class InvalidJobDataError extends QueueError {
  constructor(message: string) {
    super('QUEUE_INVALID_JOB', message);
    this.name = 'InvalidJobDataError';
  }
}
