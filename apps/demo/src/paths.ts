import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the demo finds its inputs. Resolved from this file, so the demo works from `dist/` (npm run
 * demo) and from `src/` (tests) alike, whatever the current directory is.
 */
const here = path.dirname(fileURLToPath(import.meta.url));

export const DEMO_DIR = path.resolve(here, '..');
export const REPO_ROOT = path.resolve(DEMO_DIR, '..', '..');
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

export const DEMO_INPUTS = {
  agentsDir: path.join(EXAMPLES_DIR, 'agents'),
  toolsModule: path.join(EXAMPLES_DIR, 'tools', 'support-tools.mjs'),
  casesFile: path.join(EXAMPLES_DIR, 'data', 'cases.json'),
  contractFile: path.join(EXAMPLES_DIR, 'contracts', 'refunds.contract.yml'),
  skillsDir: path.join(EXAMPLES_DIR, 'skills'),
  scenarioFile: path.join(DEMO_DIR, 'scenario', 'support-demo.scenario.yml'),
  workspaceFixture: path.join(DEMO_DIR, 'fixtures', 'workspace'),
} as const;

/** The artifacts of one run, all under the output directory. */
export interface DemoOutputs {
  dir: string;
  database: string;
  spans: string;
  captures: string;
  workspace: string;
  report: string;
}

export function demoOutputs(dir: string): DemoOutputs {
  const root = path.resolve(dir);
  return {
    dir: root,
    database: path.join(root, 'baton.db'),
    spans: path.join(root, 'spans.jsonl'),
    captures: path.join(root, 'captures'),
    workspace: path.join(root, 'workspace'),
    report: path.join(root, 'report.html'),
  };
}
