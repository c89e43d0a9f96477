import { readFile } from 'node:fs/promises';
import { CaseDataUnavailableError, CaseNotFoundError, TenantMismatchError } from './errors.js';

export interface GetCaseFieldsArgs {
  /** The authenticated tenant (never a model-supplied one). */
  tenant: string;
  /** The case id. */
  caseId: string;
  /** Field name → dotted path in the case record; only these are returned. */
  fields: Record<string, string>;
}

/**
 * Reads case data for the packet builder. Returns ONLY the requested fields (absent ones are
 * left out). A case of another tenant is `TenantMismatchError`; an unknown case `CaseNotFoundError`.
 */
export interface CaseDataSource {
  getCaseFields(args: GetCaseFieldsArgs): Promise<Record<string, unknown>>;
}

export interface FileCaseDataSourceOptions {
  /** A JSON file holding an array of case records (examples/data/cases.json's shape). */
  file: string;
  /** Key holding the tenant in a record (default `tenant`). */
  tenantKey?: string;
  /** Key holding the case id in a record (default `case_id`). */
  caseIdKey?: string;
}

type CaseRecord = Record<string, unknown>;

/** A case-data source over a JSON file of case records (`[{ tenant, case_id, ... }]`). */
export function createFileCaseDataSource(options: FileCaseDataSourceOptions): CaseDataSource {
  const tenantKey = options.tenantKey ?? 'tenant';
  const caseIdKey = options.caseIdKey ?? 'case_id';
  const load = async (): Promise<CaseRecord[]> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(options.file, 'utf8'));
    } catch (err) {
      throw new CaseDataUnavailableError(`case data unavailable: cannot read ${options.file} as JSON`, { cause: err });
    }
    const list = Array.isArray(parsed) ? parsed : isRecord(parsed) && Array.isArray(parsed.cases) ? parsed.cases : undefined;
    if (!list)
      throw new CaseDataUnavailableError(`case data unavailable: ${options.file} must hold an array of cases (or { "cases": [...] })`);
    return list.filter(isRecord);
  };
  return createInMemoryCaseDataSource({ cases: load, tenantKey, caseIdKey });
}

export interface InMemoryCaseDataSourceOptions {
  /** The case records, or a function that loads them. */
  cases: CaseRecord[] | (() => Promise<CaseRecord[]>);
  tenantKey?: string;
  caseIdKey?: string;
}

/** A case-data source over records in memory (tests, embedding). */
export function createInMemoryCaseDataSource(options: InMemoryCaseDataSourceOptions): CaseDataSource {
  const tenantKey = options.tenantKey ?? 'tenant';
  const caseIdKey = options.caseIdKey ?? 'case_id';
  return {
    async getCaseFields({ tenant, caseId, fields }) {
      const cases = typeof options.cases === 'function' ? await options.cases() : options.cases;
      const record = cases.find((c) => c[caseIdKey] === caseId);
      if (!record) throw new CaseNotFoundError(`case not found for tenant ${tenant}`);
      if (record[tenantKey] !== tenant) throw new TenantMismatchError('the case belongs to another tenant than the authenticated one');
      const out: Record<string, unknown> = {};
      for (const [name, path] of Object.entries(fields)) {
        const value = readPath(record, path);
        if (value !== undefined) out[name] = value;
      }
      return out;
    },
  };
}

function readPath(record: CaseRecord, path: string): unknown {
  let cur: unknown = record;
  for (const key of path.split('.')) {
    if (!isRecord(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Canary markers planted in case data (`CANARY-<WHERE>-<hex>`, the convention of
 * examples/data/cases.json): tests and guardrails look for them to prove notes and prior messages
 * never leak. The one definition shared by `baton run`/`baton serve` and the demo.
 */
export const CASE_CANARY_PATTERN = /CANARY-[A-Z]+-[0-9a-f]+/g;

/** The distinct canary markers in a text, in order of first appearance. */
export function findCaseCanaries(text: string): string[] {
  return [...new Set(text.match(CASE_CANARY_PATTERN) ?? [])];
}

/**
 * The canaries of a case-data file: every `CANARY-<WHERE>-<hex>` marker in it, plus the strings
 * of a top-level `canaries` array when the file is `{ "cases": [...], "canaries": [...] }`.
 * Load them into the guardrail (`createGuardrailEngine({ canaries })`) so a canary in a handoff,
 * tool call or response is blocked. `CaseDataUnavailableError` if the file cannot be read.
 */
export async function readCaseCanaries(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CaseDataUnavailableError(`case data unavailable: cannot read ${file}`, { cause: err });
  }
  const found = findCaseCanaries(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CaseDataUnavailableError(`case data unavailable: cannot read ${file} as JSON`, { cause: err });
  }
  const listed = isRecord(parsed) ? parsed.canaries : undefined;
  if (listed !== undefined) {
    if (!Array.isArray(listed) || !listed.every((c) => typeof c === 'string' && c.length >= 8)) {
      throw new CaseDataUnavailableError(`case data unavailable: ${file}: "canaries" must be an array of strings of 8 or more characters`);
    }
    for (const c of listed as string[]) if (!found.includes(c)) found.push(c);
  }
  return found;
}
