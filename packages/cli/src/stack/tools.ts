import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolImplementation } from '@baton/runner';
import { StackConfigError } from './errors.js';

/** Tool implementations by name. */
export type ToolRecord = Record<string, ToolImplementation>;

/**
 * Imports tool modules; each must export `tools`, a record of functions. A name defined twice is
 * refused rather than one silently winning.
 */
export async function loadToolModules(paths: readonly string[]): Promise<ToolRecord> {
  const tools: ToolRecord = {};
  for (const p of paths) {
    let mod: { tools?: unknown };
    try {
      mod = (await import(pathToFileURL(resolve(p)).href)) as { tools?: unknown };
    } catch (err) {
      throw new StackConfigError(`tool module ${p}: cannot import module: ${(err as Error).message}`, { cause: err });
    }
    if (!mod.tools || typeof mod.tools !== 'object')
      throw new StackConfigError(`tool module ${p}: the module must export \`tools\`, a record of functions`);
    for (const [name, fn] of Object.entries(mod.tools as Record<string, unknown>)) {
      if (typeof fn !== 'function') throw new StackConfigError(`tool module ${p}: tools.${name} is not a function`);
      if (Object.hasOwn(tools, name)) throw new StackConfigError(`tool module ${p}: tool '${name}' is defined by two modules`);
      tools[name] = fn as ToolImplementation;
    }
  }
  return tools;
}

/** Merges tool records; a name in two of them is a configuration error. */
export function mergeTools(...records: ToolRecord[]): ToolRecord {
  const out: ToolRecord = {};
  for (const record of records) {
    for (const [name, fn] of Object.entries(record)) {
      if (Object.hasOwn(out, name)) throw new StackConfigError(`tool '${name}' is given twice (tool modules and tools)`);
      out[name] = fn;
    }
  }
  return out;
}
