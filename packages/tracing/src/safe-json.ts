/**
 * JSON serialization that never throws: circular references become "[Circular]", bigints become
 * strings, errors keep name/message/code (never the stack: logs reach CLI users), and anything
 * deeper than `maxDepth` is cut off.
 */
export function safeJsonStringify(value: unknown, maxDepth = 12): string {
  try {
    return JSON.stringify(toJsonSafe(value, new Set(), 0, maxDepth));
  } catch {
    return JSON.stringify('[Unserializable]');
  }
}

function toJsonSafe(value: unknown, ancestors: Set<object>, depth: number, maxDepth: number): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  const obj = value as object;
  if (ancestors.has(obj)) return '[Circular]';
  if (depth >= maxDepth) return '[Truncated]';
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
  ancestors.add(obj);
  try {
    if (obj instanceof Error) {
      const out: Record<string, unknown> = { name: obj.name, message: obj.message };
      const code = (obj as { code?: unknown }).code;
      if (code !== undefined) out.code = toJsonSafe(code, ancestors, depth + 1, maxDepth);
      if (obj.cause !== undefined) out.cause = toJsonSafe(obj.cause, ancestors, depth + 1, maxDepth);
      return out;
    }
    if (Array.isArray(obj)) {
      return obj.map((item) => {
        const safe = toJsonSafe(item, ancestors, depth + 1, maxDepth);
        return safe === undefined ? null : safe;
      });
    }
    if (obj instanceof Map) {
      return toJsonSafe(Object.fromEntries(obj), ancestors, depth + 1, maxDepth);
    }
    if (obj instanceof Set) {
      return toJsonSafe([...obj], ancestors, depth + 1, maxDepth);
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      let raw: unknown;
      try {
        raw = (obj as Record<string, unknown>)[key];
      } catch {
        raw = '[Unreadable]';
      }
      const safe = toJsonSafe(raw, ancestors, depth + 1, maxDepth);
      if (safe !== undefined) out[key] = safe;
    }
    return out;
  } finally {
    ancestors.delete(obj);
  }
}
