import { readFile } from 'node:fs/promises';
import { LineCounter, isNode, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { ScenarioError } from './errors.js';
import { ScenarioSchema } from './scenario-schema.js';
import type { Scenario } from './scenario-schema.js';

/** Scenario files are small; refuse anything that is clearly not one. */
const MAX_SCENARIO_BYTES = 256 * 1024;

/** Where a path inside the document starts, walking up to the nearest node that exists. */
function positionOf(doc: Document, counter: LineCounter, path: ReadonlyArray<PropertyKey>): { line: number; col: number } {
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = doc.getIn(path.slice(0, depth) as unknown[], true);
    if (isNode(node) && node.range) return counter.linePos(node.range[0]);
  }
  return { line: 1, col: 1 };
}

/**
 * Parses and validates scenario text. Every problem is reported as `file:line:col: message`;
 * duplicate keys and alias bombs are refused by the YAML parser.
 */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ScenarioError(
      doc.errors.map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return `${file}:${pos.line}:${pos.col}: ${e.message.split('\n')[0]}`;
      }),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new ScenarioError([`${file}:1:1: ${(err as Error).message}`], { cause: err });
  }
  const parsed = ScenarioSchema.safeParse(data);
  if (!parsed.success) {
    throw new ScenarioError(
      parsed.error.issues.map((issue) => {
        const pos = positionOf(doc, counter, issue.path);
        const where = issue.path.length > 0 ? ` (at ${issue.path.join('.')})` : '';
        return `${file}:${pos.line}:${pos.col}: ${issue.message}${where}`;
      }),
    );
  }
  return parsed.data;
}

/** Reads and validates a scenario file (`*.scenario.yml`). */
export async function loadScenarioFile(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ScenarioError([`${path}:1:1: cannot read scenario file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`], {
      cause: err,
    });
  }
  if (Buffer.byteLength(text) > MAX_SCENARIO_BYTES) {
    throw new ScenarioError([`${path}:1:1: scenario file is larger than ${MAX_SCENARIO_BYTES} bytes`]);
  }
  return parseScenario(text, path);
}
