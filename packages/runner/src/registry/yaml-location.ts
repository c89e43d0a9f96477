import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { RegistryProblem } from '../errors.js';

/** A YAML file parsed with positions, so schema problems can be reported as `file:line:col`. */
export interface LocatedYaml {
  file: string;
  doc: Document.Parsed;
  lineCounter: LineCounter;
  /** YAML syntax problems (duplicate keys included). */
  problems: RegistryProblem[];
}

export function parseLocatedYaml(file: string, text: string): LocatedYaml {
  const lineCounter = new LineCounter();
  // Bounded alias expansion: an alias bomb fails fast instead of exhausting memory.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const problems: RegistryProblem[] = [...doc.errors, ...doc.warnings].map((e) => {
    const pos = lineCounter.linePos(e.pos[0]);
    return { file, line: pos.line, col: pos.col, message: e.message.split('\n')[0] ?? e.message };
  });
  return { file, doc, lineCounter, problems };
}

/** The position of the node at `path` (or the closest existing ancestor); `key` points at a map key. */
export function locate(located: LocatedYaml, path: ReadonlyArray<PropertyKey>, key?: string): { line: number; col: number } {
  let node: unknown = located.doc.contents;
  let best: unknown = node;
  for (const segment of path) {
    if (!isNode(node) && !isPair(node)) break;
    const next =
      isMap(node) || (isNode(node) && 'items' in node)
        ? (node as { get(k: unknown, keep: boolean): unknown }).get(typeof segment === 'symbol' ? String(segment) : segment, true)
        : undefined;
    if (next === undefined || next === null) break;
    node = next;
    best = next;
  }
  if (key !== undefined && isMap(best)) {
    const pair = best.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (pair && isNode(pair.key)) best = pair.key;
  }
  const range = isNode(best) ? best.range : undefined;
  const offset = range ? range[0] : 0;
  return located.lineCounter.linePos(offset);
}
