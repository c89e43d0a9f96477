import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { InvalidKeysError } from './errors.js';

/** Secret keys; keep them apart: references are shown to recipients, digests prove what crossed. */
export interface PacketKeys {
  /** Key for scoped opaque references (≥ 32 bytes recommended). */
  referenceKey: string | Uint8Array;
  /** Key for audit digests (≥ 32 bytes recommended). */
  auditKey: string | Uint8Array;
}

export interface DeriveReferenceArgs {
  key: string | Uint8Array;
  recipient: string;
  purpose: string;
  tenant: string;
  /** What the reference stands for, e.g. `case` or a field name. */
  kind: string;
  /** The raw id. */
  value: string;
}

/**
 * A scoped opaque reference: `ref_` + 32 base64url chars of HMAC-SHA-256 over recipient, purpose,
 * tenant, kind and value. The same id gives different references to different recipients or
 * purposes, and a reference reveals nothing about the id without the key.
 */
export function deriveReference(args: DeriveReferenceArgs): string {
  const mac = createHmac('sha256', args.key)
    .update(canonicalJson([args.recipient, args.purpose, args.tenant, args.kind, args.value]))
    .digest('base64url');
  return `ref_${mac.slice(0, 32)}`;
}

/** The keyed digest of a value: `hmac-sha256:` + hex of HMAC-SHA-256(key, canonical JSON). */
export function keyedDigest(key: string | Uint8Array, value: unknown): string {
  return `hmac-sha256:${createHmac('sha256', key).update(canonicalJson(value)).digest('hex')}`;
}

/** Constant-time comparison of two digests. */
export function digestsEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Shortest accepted key, in bytes (UTF-8 for strings). */
export const MIN_KEY_BYTES = 32;

export interface PacketKeysFromEnvOptions {
  /** Environment to read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** When a key is unset, use a random one for this process (digests then reconcile only within it). */
  allowEphemeral?: boolean;
}

/**
 * Reads `BATON_PACKET_REFERENCE_KEY` and `BATON_PACKET_AUDIT_KEY` (each ≥ 32 bytes, and different).
 * A missing key is `InvalidKeysError` unless `allowEphemeral`; a short or reused key always is.
 */
export function packetKeysFromEnv(options: PacketKeysFromEnvOptions = {}): PacketKeys & { ephemeral: boolean } {
  const env = options.env ?? process.env;
  let ephemeral = false;
  const read = (name: string): string | Uint8Array => {
    const value = env[name];
    if (value === undefined || value === '') {
      if (!options.allowEphemeral) throw new InvalidKeysError(`${name} is not set; set it to a secret of at least ${MIN_KEY_BYTES} bytes`);
      ephemeral = true;
      return randomBytes(MIN_KEY_BYTES);
    }
    if (Buffer.byteLength(value) < MIN_KEY_BYTES)
      throw new InvalidKeysError(`${name} is ${Buffer.byteLength(value)} bytes; it must be at least ${MIN_KEY_BYTES}`);
    return value;
  };
  const referenceKey = read('BATON_PACKET_REFERENCE_KEY');
  const auditKey = read('BATON_PACKET_AUDIT_KEY');
  if (typeof referenceKey === 'string' && referenceKey === auditKey)
    throw new InvalidKeysError('BATON_PACKET_REFERENCE_KEY and BATON_PACKET_AUDIT_KEY must differ');
  return { referenceKey, auditKey, ephemeral };
}
