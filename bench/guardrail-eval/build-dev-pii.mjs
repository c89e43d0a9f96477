// Builds a TUNING set (not held-out; rules may be adjusted on it) of generated PII and look-alikes
// into $BATON_TUNING_DIR/pii-generated.jsonl (default /work/tuning):
//
// - positives: phone numbers of every Faker locale (national and international formats, with and
//   without a phone word), e-mail addresses, IPv4 and compressed IPv6, SSNs, card numbers, IBANs;
// - look-alikes (label 0): ISBN-10/13, EAN-13 and UPC-A with valid check digits, Luhn-valid order,
//   invoice and tracking numbers, versions (semver, four-part, calendar), dates and times in
//   every locale's formats, epoch timestamps, street addresses, postal codes, prices, coordinates,
//   hashes, UUIDs, MAC addresses.
//
// Faker (@faker-js/faker, MIT) is not a dependency of the repo: point BATON_FAKER_DIR at a
// directory where it is installed (`npm install @faker-js/faker@10.6.0`). Seeded: the same rows
// every run. Rows are never committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const fakerDir = process.env.BATON_FAKER_DIR ?? '/tmp/fk';
const require = createRequire(join(fakerDir, 'package.json'));
const { allFakers, faker } = await import(require.resolve('@faker-js/faker'));
const out = process.env.BATON_TUNING_DIR ?? '/work/tuning';

const rows = [];
const add = (text, label, family) => rows.push({ id: `gen-${rows.length + 1}`, text, label, family, source: 'faker-generated' });
const pick = (f, xs) => xs[f.number.int({ min: 0, max: xs.length - 1 })];

function luhnDigit(body) {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}
function gtinDigit(body) {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return String((10 - (sum % 10)) % 10);
}
function isbn10(body9) {
  let s = 0;
  for (let i = 0; i < 9; i++) s += Number(body9[i]) * (10 - i);
  const c = (11 - (s % 11)) % 11;
  return body9 + (c === 10 ? 'X' : String(c));
}
function compressV6(v6) {
  // Zero a random run of groups, then write it the RFC 5952 way (longest zero run as "::").
  const g = v6.split(':');
  const at = faker.number.int({ min: 1, max: 5 });
  const len = faker.number.int({ min: 2, max: 8 - at });
  for (let i = at; i < at + len; i++) g[i] = '0';
  const s = g.map((x) => x.replace(/^0+(?=.)/, '')).join(':');
  return s.replace(/(?:^|:)0(?::0)+(?::|$)/, '::');
}

faker.seed(13);
const phoneFrames = [
  'Call me on {}.',
  'Tel: {}',
  'Mobile {} (evenings)',
  'You can reach the office at {} after 9am.',
  '{}',
  'Contact: Jane, {}',
];
for (const [locale, f] of Object.entries(allFakers)) {
  if (locale === 'base' || locale === 'en_BORK' || locale === 'en_AU_ocker') continue;
  f.seed(13);
  for (let k = 0; k < 3; k++) {
    let n;
    try {
      n = f.phone.number({ style: k === 0 ? 'international' : 'human' });
    } catch {
      continue;
    }
    add(pick(f, phoneFrames).replace('{}', n), 1, `phone:${locale}`);
  }
  const d = f.date.past({ years: 30 });
  for (const style of ['short', 'medium']) {
    let s;
    try {
      s = d.toLocaleDateString(locale.replace('_', '-'), { dateStyle: style });
    } catch {
      s = d.toISOString().slice(0, 10);
    }
    add(`Delivered on ${s}.`, 0, 'lookalike:date');
  }
  try {
    add(`${f.location.streetAddress({ useFullAddress: true })}, ${f.location.zipCode()} ${f.location.city()}`, 0, 'lookalike:address');
  } catch {
    // a locale without street or postcode data
  }
}
for (let k = 0; k < 40; k++) {
  add(`Send it to ${faker.internet.email()} today.`, 1, 'email');
  add(`client ${faker.internet.ipv4()} connected`, 1, 'ip');
  add(`listening on ${compressV6(faker.internet.ipv6())}`, 1, 'ip');
  const area = String(faker.number.int({ min: 1, max: 899 })).padStart(3, '0');
  const ssn = [
    area === '666' ? '667' : area,
    String(faker.number.int({ min: 1, max: 99 })).padStart(2, '0'),
    String(faker.number.int({ min: 1, max: 9999 })).padStart(4, '0'),
  ];
  add(
    pick(faker, [
      `SSN ${ssn.join('-')}`,
      `social security number: ${ssn.join(' ')}`,
      `ssn: ${ssn.join('')}`,
      `Her SSN is ${ssn.join('-')}.`,
    ]),
    1,
    'ssn',
  );
  add(`card ${faker.finance.creditCardNumber()}`, 1, 'card');
  add(`IBAN ${faker.finance.iban({ formatted: k % 2 === 0 })}`, 1, 'iban');

  // look-alikes
  const b12 = faker.string.numeric(12);
  const isbn13 = `978${b12.slice(0, 9)}`;
  add(
    pick(faker, [
      `ISBN ${isbn13}${gtinDigit(isbn13)}`,
      `${isbn13}${gtinDigit(isbn13)}`,
      `ISBN-10: ${isbn10(b12.slice(0, 9))}`,
      `978-${b12.slice(0, 1)}-${b12.slice(1, 4)}-${b12.slice(4, 9)}-${gtinDigit(`978${b12.slice(0, 9)}`)}`,
    ]),
    0,
    'lookalike:isbn',
  );
  add(`EAN ${b12}${gtinDigit(b12)}`, 0, 'lookalike:ean');
  add(`UPC ${b12.slice(0, 11)}${gtinDigit(b12.slice(0, 11))}`, 0, 'lookalike:upc');
  add(`${b12.slice(0, 11)}${gtinDigit(b12.slice(0, 11))}`, 0, 'lookalike:upc');
  const body = `4${faker.string.numeric(14)}`;
  add(
    pick(faker, ['Order #{}', 'Invoice {}', 'Tracking number: {}', 'order {} has shipped', 'Ref. {}']).replace(
      '{}',
      body + luhnDigit(body),
    ),
    0,
    'lookalike:order',
  );
  add(pick(faker, ['upgrade to {}', 'version {}', 'v{}', 'node@{}']).replace('{}', faker.system.semver()), 0, 'lookalike:version');
  add(
    `build ${faker.number.int({ min: 1, max: 20 })}.${faker.number.int({ max: 9 })}.${faker.number.int({ max: 99 })}.${faker.number.int({ min: 1000, max: 99999 })}`,
    0,
    'lookalike:version',
  );
  add(
    `release 20${faker.number.int({ min: 10, max: 29 })}.${String(faker.number.int({ min: 1, max: 12 })).padStart(2, '0')}.${faker.number.int({ min: 0, max: 9 })}`,
    0,
    'lookalike:version',
  );
  add(`at ${faker.date.recent().toISOString()}`, 0, 'lookalike:date');
  add(`ts=${faker.date.recent().getTime()}`, 0, 'lookalike:timestamp');
  add(`total ${faker.commerce.price({ min: 1000, max: 9999999 })} EUR`, 0, 'lookalike:price');
  add(`at ${faker.location.latitude()}, ${faker.location.longitude()}`, 0, 'lookalike:coordinates');
  add(`commit ${faker.git.commitSha()}`, 0, 'lookalike:hash');
  add(`id ${faker.string.uuid()}`, 0, 'lookalike:uuid');
  add(`hw ${faker.internet.mac()}`, 0, 'lookalike:mac');
  add(
    `${faker.number.int({ min: 1000, max: 999999 }).toLocaleString('en-US')} downloads, ${faker.number.int({ min: 1000, max: 999999 }).toLocaleString('de-DE')} Aufrufe`,
    0,
    'lookalike:count',
  );
}
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'pii-generated.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(`wrote ${rows.length} rows to ${join(out, 'pii-generated.jsonl')}`);
