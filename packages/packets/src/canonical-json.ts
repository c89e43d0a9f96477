/**
 * Canonical JSON after RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace,
 * numbers and strings serialised as ECMAScript's JSON.stringify does (which JCS adopts).
 * Written here rather than pulled in: it is twenty lines and the digest must not change under us.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, new Set());
}

function serialize(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot encode a non-finite number');
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`canonical JSON cannot encode a ${typeof value}`);
  }
  const obj = value as object;
  const withToJson = obj as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return serialize(withToJson.toJSON(), seen);
  if (seen.has(obj)) throw new TypeError('canonical JSON cannot encode a cycle');
  seen.add(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj.map((v) => (v === undefined || typeof v === 'function' ? 'null' : serialize(v, seen))).join(',')}]`;
  } else {
    const rec = obj as Record<string, unknown>;
    const keys = Object.keys(rec)
      .filter((k) => rec[k] !== undefined && typeof rec[k] !== 'function')
      .sort();
    out = `{${keys.map((k) => `${JSON.stringify(k)}:${serialize(rec[k], seen)}`).join(',')}}`;
  }
  seen.delete(obj);
  return out;
}
