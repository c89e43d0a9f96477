import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './tmp.js';

/** file:// URL of the built package, for fixture skills that delegate further (needs `npm run build`). */
export const SKILLS_DIST = new URL('../../dist/index.js', import.meta.url).href;

/** Reads the SkillPackage from stdin and calls `body(pkg)`; `body`'s return value is printed as JSON. */
export function nodeSkill(body: string): string {
  return `let raw = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { raw += c; });
process.stdin.on('end', async () => {
  const pkg = JSON.parse(raw);
  const result = await (async () => { ${body} })();
  if (result !== undefined) process.stdout.write(JSON.stringify(result));
});
`;
}

export interface FixtureSkill {
  name: string;
  source: string;
  file?: string;
  capabilities?: string[];
  outputSchema?: Record<string, unknown>;
}

/** Writes skills into a fresh skills directory and returns it. */
export async function skillsDir(skills: FixtureSkill[]): Promise<string> {
  const dir = await tempDir('baton-skills-dir-');
  for (const s of skills) {
    const file = s.file ?? 'skill.mjs';
    await mkdir(path.join(dir, s.name), { recursive: true });
    await writeFile(path.join(dir, s.name, file), s.source);
    await writeFile(
      path.join(dir, s.name, 'manifest.json'),
      JSON.stringify(
        {
          skill_name: s.name,
          version: '1.0.0',
          entry_point: file,
          input_schema: {},
          output_schema: s.outputSchema ?? {},
          capabilities: s.capabilities ?? ['fs_read'],
        },
        null,
        2,
      ),
    );
  }
  return dir;
}

/** True if a process with this pid is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
