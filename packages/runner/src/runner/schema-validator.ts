import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Compiles and caches tool-argument JSON Schemas (draft 2020-12) with Ajv. */
export class ArgumentValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  private readonly cache = new WeakMap<object, ValidateFunction>();

  constructor() {
    addFormats.default(this.ajv);
  }

  /** Undefined when `value` matches `schema`, otherwise a readable list of what is wrong. */
  check(schema: object, value: unknown): string | undefined {
    let validate = this.cache.get(schema);
    if (!validate) {
      try {
        validate = this.ajv.compile(schema);
      } catch (error) {
        return `the tool's parameter schema does not compile: ${error instanceof Error ? error.message : String(error)}`;
      }
      this.cache.set(schema, validate);
    }
    if (validate(value)) return undefined;
    return formatErrors(validate.errors ?? []);
  }
}

function formatErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((e) => {
      const where = e.instancePath === '' ? 'arguments' : `arguments${e.instancePath}`;
      if (e.keyword === 'additionalProperties')
        return `${where}: unknown property '${String((e.params as { additionalProperty?: unknown }).additionalProperty)}'`;
      if (e.keyword === 'enum') return `${where} must be one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`;
      return `${where} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}
