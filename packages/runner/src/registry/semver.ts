/**
 * Semantic Versioning 2.0.0 precedence (semver.org §11), including pre-release identifiers.
 * Hand-written on purpose: the registry needs only parse + compare of versions that the manifest
 * schema has already validated, which does not justify the `semver` package's range machinery.
 */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export interface ParsedSemver {
  major: bigint;
  minor: bigint;
  patch: bigint;
  prerelease: string[];
}

export function parseSemver(version: string): ParsedSemver | undefined {
  const m = SEMVER.exec(version);
  if (!m) return undefined;
  return {
    major: BigInt(m[1]!),
    minor: BigInt(m[2]!),
    patch: BigInt(m[3]!),
    prerelease: m[4] === undefined ? [] : m[4].split('.'),
  };
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareIdentifier(a: string, b: string): number {
  const aNum = /^\d+$/.test(a);
  const bNum = /^\d+$/.test(b);
  if (aNum && bNum) return compareBig(BigInt(a), BigInt(b));
  // Numeric identifiers always have lower precedence than alphanumeric ones.
  if (aNum) return -1;
  if (bNum) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative if a < b, 0 if equal precedence (build metadata ignored), positive if a > b. Throws on invalid input. */
export function compareSemver(a: string, b: string): number {
  const pa = parseSemver(a);
  const pb = parseSemver(b);
  if (!pa) throw new TypeError(`'${a}' is not a semantic version`);
  if (!pb) throw new TypeError(`'${b}' is not a semantic version`);
  const core = compareBig(pa.major, pb.major) || compareBig(pa.minor, pb.minor) || compareBig(pa.patch, pb.patch);
  if (core !== 0) return core;
  // A version without pre-release has higher precedence than one with.
  if (pa.prerelease.length === 0 || pb.prerelease.length === 0) {
    return (pa.prerelease.length === 0 ? 1 : 0) - (pb.prerelease.length === 0 ? 1 : 0);
  }
  const n = Math.min(pa.prerelease.length, pb.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(pa.prerelease[i]!, pb.prerelease[i]!);
    if (c !== 0) return c;
  }
  return pa.prerelease.length - pb.prerelease.length;
}
