// Builds a TUNING set (not held-out; rules may be adjusted on it) into $BATON_TUNING_DIR
// (default /work/tuning):
//
// - phones.jsonl: libphonenumber-js's example numbers (MIT; Google libphonenumber metadata,
//   Apache-2.0), each country's example mobile number in national and international format inside
//   short sentences. libphonenumber-js is not a dependency of the repo: point BATON_LPN_DIR at a
//   directory where it is installed (`npm install libphonenumber-js@1.12.26`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const lpnDir = process.env.BATON_LPN_DIR ?? '/tmp/lpn';
const require = createRequire(join(lpnDir, 'package.json'));
const { parsePhoneNumber } = require('libphonenumber-js/max');
const examples = require('libphonenumber-js/examples.mobile.json');
const out = process.env.BATON_TUNING_DIR ?? '/work/tuning';
const frames = ['Call me on {}.', 'My mobile: {}', 'You can reach the office at {} after 9am.', '{}'];
const rows = [];
let i = 0;
for (const [country, national] of Object.entries(examples)) {
  const p = parsePhoneNumber(national, country);
  for (const s of [p.formatNational(), p.formatInternational()])
    rows.push({ id: `ph-${++i}`, text: frames[i % frames.length].replace('{}', s), label: 1, country, value: s });
}
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'phones.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(`wrote ${rows.length} rows to ${join(out, 'phones.jsonl')}`);
