import { ManifestUsageError } from '../errors.js';
import { SHORTHAND_TYPES } from './skill-manifest.js';

/** Keys that mark an `input_schema` / `output_schema` as a full JSON Schema rather than shorthand. */
const JSON_SCHEMA_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$comment',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'items',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'enum',
  'const',
  'title',
  'description',
]);

/** True when `value` is written as a full JSON Schema (it uses a JSON Schema keyword at the top). */
export function isFullJsonSchema(value: Record<string, unknown>): boolean {
  return Object.keys(value).some((k) => JSON_SCHEMA_KEYWORDS.has(k));
}

const SHORTHAND = new Set<string>(SHORTHAND_TYPES);

/** Why a shorthand field type is wrong, or `undefined` when it is a known type name. */
export function shorthandTypeProblem(type: unknown): string | undefined {
  if (typeof type !== 'string') return `must be a type name (${SHORTHAND_TYPES.join(', ')}), optionally ending in '?'`;
  const base = type.endsWith('?') ? type.slice(0, -1) : type;
  return SHORTHAND.has(base)
    ? undefined
    : `unknown type ${JSON.stringify(type)}; use one of ${SHORTHAND_TYPES.join(', ')} (add '?' for optional)`;
}

/**
 * Turns a skill's `input_schema` / `output_schema` into a JSON Schema (draft 2020-12). Shorthand
 * `{"repo_path": "string", "strict_mode": "boolean?"}` becomes an object schema whose fields are
 * required unless their type ends in `?`; a full JSON Schema is returned as a copy.
 * Throws `ManifestUsageError` when `value` is neither.
 */
export function skillIoSchemaToJsonSchema(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ManifestUsageError('skill io schema must be an object: shorthand {"field": "type"} or a JSON Schema');
  }
  const record = value as Record<string, unknown>;
  if (isFullJsonSchema(record)) return structuredClone(record);
  const properties: Record<string, { type: string }> = {};
  const required: string[] = [];
  for (const [field, type] of Object.entries(record)) {
    const problem = shorthandTypeProblem(type);
    if (problem) throw new ManifestUsageError(`skill io schema field '${field}': ${problem}`);
    const optional = (type as string).endsWith('?');
    properties[field] = { type: optional ? (type as string).slice(0, -1) : (type as string) };
    if (!optional) required.push(field);
  }
  return { type: 'object', properties, required };
}
