import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

let checker: Ajv2020 | undefined;
let validator: Ajv2020 | undefined;

/**
 * An Ajv 2020 instance for user schemas. Strict about keywords (an unknown keyword is an
 * error, which is how typos like `requird` surface), quiet about everything else, and never loads
 * remote schemas: an unresolved `$ref` is a problem, not a network call.
 */
function createAjv(purpose: 'check' | 'validate'): Ajv2020 {
  const instance = new Ajv2020({
    strict: false,
    strictSchema: true,
    logger: false,
    validateFormats: true,
    // Checking only needs the first compile error, and skipping the optimiser roughly halves
    // compile time; validators of data report every error and run optimised code.
    allErrors: purpose === 'validate',
    code: { optimize: purpose === 'validate' },
  });
  addFormats.default(instance);
  return instance;
}

function ajv(): Ajv2020 {
  checker ??= createAjv('check');
  return checker;
}

function dataAjv(): Ajv2020 {
  validator ??= createAjv('validate');
  return validator;
}

/**
 * Results by schema text. Compiling costs about a millisecond, parsing a manifest much less, and
 * the same schema text always gives the same answer, so recently seen schemas are not recompiled.
 */
const recent = new Map<string, string | undefined>();
const RECENT_LIMIT = 256;

/** Why `schema` does not compile as a JSON Schema (draft 2020-12), or `undefined` if it does. */
export function jsonSchemaCompileProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be a JSON Schema object';
  const key = JSON.stringify(schema);
  if (recent.has(key)) return recent.get(key);
  const problem = compileProblem(schema);
  if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value!);
  recent.set(key, problem);
  return problem;
}

function compileProblem(schema: object): string | undefined {
  const instance = ajv();
  try {
    instance.compile(schema);
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return `is not a valid JSON Schema: ${message.split('\n')[0]}`;
  } finally {
    // A user schema may carry an `$id`; forget it so the next manifest may reuse the same id.
    try {
      instance.removeSchema(schema);
    } catch {
      // Nothing was registered.
    }
  }
}

/** A compiled validator for a JSON Schema, for callers that check data (skills' input and output). */
export function compileJsonSchema(schema: object): (data: unknown) => { valid: boolean; errors: string[] } {
  const instance = dataAjv();
  const validate = instance.compile(schema);
  instance.removeSchema(schema);
  return (data) => {
    const valid = validate(data);
    return {
      valid,
      errors: valid ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`),
    };
  };
}
