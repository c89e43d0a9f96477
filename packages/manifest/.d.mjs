import { parseAgentManifest, parseSkillManifest } from './dist/index.js';
const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
console.log(parseAgentManifest(`x: ${deep}\n`, { file: 'a' }).problems);
console.log(parseSkillManifest(`{"x": ${deep}}`, { file: 'm' }).problems);
const deeper = `${'['.repeat(300000)}${']'.repeat(300000)}`;
let t = performance.now();
console.log(parseAgentManifest(`x: ${deeper}\n`, { file: 'a' }).problems, performance.now()-t);
t = performance.now();
console.log(parseSkillManifest(`{"x": ${deeper}}`, { file: 'm' }).problems, performance.now()-t);
