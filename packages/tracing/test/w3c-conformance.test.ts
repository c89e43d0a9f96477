// Conformance with W3C Trace Context (Level 1 and Level 2), checked end to end through
// `startTraceContextTestService`: a loopback "harness" asks the service to call it back and reads
// the headers of the callback. Every behaviour the official suite checks has a case here, written
// from the specification's text; the official suite itself runs with `npm run test:w3c`.
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTraceContextTestService, type TraceContextTestService } from '../src/testing.js';

const TRACE_ID = '12345678901234567890123456789012';
const PARENT_ID = '1234567890123456';
const TP = (flags = '01', trace = TRACE_ID, parent = PARENT_ID, version = '00') => `${version}-${trace}-${parent}-${flags}`;

interface Callback {
  rawHeaders: string[];
}

let service: TraceContextTestService;
let harness: Server;
let harnessUrl: string;
const callbacks = new Map<string, Callback>();
let nextScope = 0;

beforeAll(async () => {
  service = await startTraceContextTestService({ host: '127.0.0.1', port: 0 });
  harness = createServer((req, res) => {
    callbacks.set(req.url ?? '', { rawHeaders: req.rawHeaders });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('null');
    });
  });
  await new Promise<void>((resolve) => harness.listen(0, '127.0.0.1', resolve));
  harnessUrl = `http://127.0.0.1:${(harness.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await service?.close();
  await new Promise<void>((resolve) => (harness ? harness.close(() => resolve()) : resolve()));
});

/** POSTs to the service with exactly these header fields (repeats and whitespace kept). */
function post(
  url: string,
  fields: Array<[string, string]>,
  body: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const target = new URL(url);
  const raw = ['host', target.host, 'content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))];
  for (const [name, value] of fields) raw.push(name, value);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: raw, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Seen {
  traceparent: string[];
  version: string;
  traceId: string;
  parentId: string;
  flags: number;
  /** Entries in order, parsed independently of the code under test. */
  tracestate: Array<[string, string]>;
  tracestateRaw: string | undefined;
}

function inspect(cb: Callback): Seen {
  const values = (name: string) =>
    cb.rawHeaders.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === name ? [cb.rawHeaders[i + 1]!] : []));
  const traceparent = values('traceparent');
  const states = values('tracestate');
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent[0] ?? '');
  const tracestateRaw = states.length ? states.join(',') : undefined;
  const tracestate: Array<[string, string]> = [];
  for (const member of (tracestateRaw ?? '').split(',')) {
    const m = member.trim();
    if (!m) continue;
    const eq = m.indexOf('=');
    tracestate.push([m.slice(0, eq), m.slice(eq + 1)]);
  }
  return {
    traceparent,
    version: match?.[1] ?? '',
    traceId: match?.[2] ?? '',
    parentId: match?.[3] ?? '',
    flags: match ? Number.parseInt(match[4]!, 16) : -1,
    tracestate,
    tracestateRaw,
  };
}

/** Sends `fields` to the service, which calls the harness back `count` times; returns what arrived. */
async function through(
  fields: Array<[string, string]>,
  count = 1,
): Promise<{ seen: Seen[]; response: { status: number; headers: Record<string, string | string[] | undefined> } }> {
  const scope = `s${++nextScope}`;
  const actions = Array.from({ length: count }, (_, i) => ({ url: `${harnessUrl}/${scope}.${i}`, arguments: [] }));
  const response = await post(service.url, fields, JSON.stringify(actions));
  expect(response.status).toBe(200);
  const seen = actions.map((_, i) => {
    const cb = callbacks.get(`/${scope}.${i}`);
    expect(cb, `callback ${i} arrived`).toBeDefined();
    return inspect(cb!);
  });
  for (const s of seen) {
    // Every callback carries exactly one valid version-00 traceparent.
    expect(s.traceparent).toHaveLength(1);
    expect(s.version).toBe('00');
    expect(s.traceId).not.toBe('0'.repeat(32));
    expect(s.parentId).not.toBe('0'.repeat(16));
  }
  return { seen, response };
}

const one = async (fields: Array<[string, string]>) => (await through(fields)).seen[0]!;
const continues = async (fields: Array<[string, string]>) => {
  const s = await one(fields);
  expect(s.traceId).toBe(TRACE_ID);
  expect(s.parentId).not.toBe(PARENT_ID);
  return s;
};
const restarts = async (fields: Array<[string, string]>) => {
  const s = await one(fields);
  expect(s.traceId).not.toBe(TRACE_ID);
  return s;
};
const key = (s: Seen, k: string) => s.tracestate.find(([name]) => name === k)?.[1];

describe('traceparent (receiving)', () => {
  it('starts a trace when none arrives', async () => {
    const s = await one([]);
    expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('continues a valid one with a new parent id', async () => {
    await continues([['traceparent', TP()]]);
  });

  it('treats a repeated traceparent as invalid and starts a new trace', async () => {
    const s = await one([
      ['traceparent', TP('01', '12345678901234567890123456789011')],
      ['traceparent', TP('01', '12345678901234567890123456789012')],
    ]);
    expect(s.traceId).not.toBe('12345678901234567890123456789011');
    expect(s.traceId).not.toBe('12345678901234567890123456789012');
  });

  it('reads the header name case-insensitively, and only that name', async () => {
    for (const name of ['TraceParent', 'TrAcEpArEnT', 'TRACEPARENT']) await continues([[name, TP()]]);
    for (const name of ['trace-parent', 'trace.parent']) await restarts([[name, TP()]]);
  });

  it('ignores OWS around the value', async () => {
    for (const v of [` ${TP()}`, `\t${TP()}`, `${TP()} `, `${TP()}\t`, `\t ${TP()} \t`]) await continues([['traceparent', v]]);
  });

  it('rejects version 00 with anything after the flags', async () => {
    await restarts([['traceparent', `${TP()}.`]]);
    await restarts([['traceparent', `${TP()}-what-the-future-will-be-like`]]);
  });

  it('parses a future version by the forward-compatibility rules and answers in version 00', async () => {
    const plain = await continues([['traceparent', TP('01', TRACE_ID, PARENT_ID, 'cc')]]);
    expect(plain.version).toBe('00');
    await continues([['traceparent', `${TP('01', TRACE_ID, PARENT_ID, 'cc')}-what-the-future-will-be-like`]]);
    await restarts([['traceparent', `${TP('01', TRACE_ID, PARENT_ID, 'cc')}.what-the-future-will-be-like`]]);
  });

  it('rejects version ff, and versions that are not two hex digits', async () => {
    for (const v of ['ff', '.0', '0.', '000', '0000', '0', 'CC']) await restarts([['traceparent', TP('01', TRACE_ID, PARENT_ID, v)]]);
  });

  it('rejects bad trace ids: all zero, illegal characters, wrong length, upper case', async () => {
    const zero = await one([['traceparent', TP('01', '0'.repeat(32))]]);
    expect(zero.traceId).not.toBe('0'.repeat(32));
    for (const id of [
      '.2345678901234567890123456789012',
      '1234567890123456789012345678901.',
      `${TRACE_ID}3`,
      TRACE_ID.slice(1),
      'ABCDEF78901234567890123456789012',
    ]) {
      const s = await one([['traceparent', TP('01', id)]]);
      expect(s.traceId).not.toBe(id);
      expect(s.traceId).not.toBe(TRACE_ID);
    }
  });

  it('rejects bad parent ids: all zero, illegal characters, wrong length, upper case', async () => {
    for (const id of ['0'.repeat(16), '.234567890123456', '123456789012345.', `${PARENT_ID}7`, PARENT_ID.slice(1), 'ABCDEF7890123456'])
      await restarts([['traceparent', TP('01', TRACE_ID, id)]]);
  });

  it('rejects bad flags: illegal characters, wrong length', async () => {
    for (const flags of ['.0', '0.', '001', '1', 'FF']) await restarts([['traceparent', TP(flags)]]);
  });
});

describe('trace-flags (Level 2)', () => {
  it('keeps the random-trace-id flag and the sampled decision exactly as received', async () => {
    expect((await continues([['traceparent', TP('02')]])).flags).toBe(0x02);
    expect((await continues([['traceparent', TP('03')]])).flags).toBe(0x03);
    expect((await continues([['traceparent', TP('00')]])).flags).toBe(0x00);
    expect((await continues([['traceparent', TP('01')]])).flags).toBe(0x01);
  });

  it('sends unknown flags as zero', async () => {
    expect((await continues([['traceparent', TP('ff')]])).flags).toBe(0x03);
    expect((await continues([['traceparent', TP('04')]])).flags).toBe(0x00);
  });

  it('marks a trace it starts as random (its ids are random)', async () => {
    expect((await one([])).flags & 0x02).toBe(0x02);
  });
});

describe('tracestate (receiving)', () => {
  const parent: [string, string] = ['traceparent', TP('00')];

  it('is discarded without a traceparent', async () => {
    const a = await one([['tracestate', 'foo=1']]);
    const b = await one([['tracestate', 'foo=1,bar=2']]);
    expect(a.tracestate).toEqual([]);
    expect(b.tracestate).toEqual([]);
  });

  it('is discarded with an invalid traceparent', async () => {
    expect(
      (
        await restarts([
          ['traceparent', TP('01', '0'.repeat(32))],
          ['tracestate', 'foo=1'],
        ])
      ).tracestate,
    ).toEqual([]);
  });

  it('is carried on with a valid traceparent, in order', async () => {
    const s = await continues([parent, ['tracestate', 'foo=1,bar=2']]);
    expect(s.tracestate).toEqual([
      ['foo', '1'],
      ['bar', '2'],
    ]);
  });

  it('reads the header name case-insensitively, and only that name', async () => {
    for (const name of ['TraceState', 'TrAcEsTaTe', 'TRACESTATE']) expect(key(await continues([parent, [name, 'foo=1']]), 'foo')).toBe('1');
    for (const name of ['trace-state', 'trace.state']) expect(key(await continues([parent, [name, 'foo=1']]), 'foo')).toBeUndefined();
  });

  it('accepts empty headers and sends none for them', async () => {
    const empty = await continues([parent, ['tracestate', '']]);
    expect(empty.tracestateRaw).toBeUndefined();
    expect((await continues([parent, ['tracestate', 'foo=1'], ['tracestate', '']])).tracestate).toEqual([['foo', '1']]);
    expect((await continues([parent, ['tracestate', ''], ['tracestate', 'foo=1']])).tracestate).toEqual([['foo', '1']]);
  });

  it('combines repeated headers in order (RFC 9110)', async () => {
    const s = await continues([parent, ['tracestate', 'foo=1,bar=2'], ['tracestate', 'rojo=1,congo=2'], ['tracestate', 'baz=3']]);
    expect(s.tracestate).toEqual([
      ['foo', '1'],
      ['bar', '2'],
      ['rojo', '1'],
      ['congo', '2'],
      ['baz', '3'],
    ]);
  });

  it('keeps one member of a duplicated key', async () => {
    for (const fields of [
      [['tracestate', 'foo=1,foo=1']],
      [['tracestate', 'foo=1,foo=2']],
      [
        ['tracestate', 'foo=1'],
        ['tracestate', 'foo=1'],
      ],
      [
        ['tracestate', 'foo=1'],
        ['tracestate', 'foo=2'],
      ],
    ] as Array<Array<[string, string]>>) {
      const s = await continues([parent, ...fields]);
      expect(s.tracestate.filter(([k]) => k === 'foo')).toHaveLength(1);
      expect(['1', '2']).toContain(key(s, 'foo'));
    }
  });

  it("accepts every allowed key and value character, keeping a value's leading space", async () => {
    const plainKey = 'abcdefghijklmnopqrstuvwxyz0123456789_-*/';
    const vendorKey = `${plainKey}@a-z0-9_-*/`;
    let value = '';
    for (let c = 0x20; c <= 0x7e; c++) if (c !== 0x2c && c !== 0x3d) value += String.fromCharCode(c);
    expect(key(await continues([parent, ['tracestate', `${plainKey}=${value}`]]), plainKey)).toBe(value);
    expect(key(await continues([parent, ['tracestate', `${vendorKey}=${value}`]]), vendorKey)).toBe(value);
  });

  it('ignores OWS around members', async () => {
    for (const v of ['foo=1 \t , \t bar=2, \t baz=3', 'foo=1\t \t,\t \tbar=2,\t \tbaz=3']) {
      expect((await continues([parent, ['tracestate', v]])).tracestate).toEqual([
        ['foo', '1'],
        ['bar', '2'],
        ['baz', '3'],
      ]);
    }
    for (const v of [' foo=1', '\tfoo=1', 'foo=1 ', 'foo=1\t', '\t foo=1 \t'])
      expect((await continues([parent, ['tracestate', v]])).tracestate).toEqual([['foo', '1']]);
  });

  it('discards the whole header for an illegal key (the traceparent stays)', async () => {
    for (const v of ['foo =1', 'FOO=1', 'foo.bar=1', '@foo=1,bar=2', 'bar=2,Foo=1'])
      expect((await continues([parent, ['tracestate', v]])).tracestate).toEqual([]);
  });

  it('accepts "@" anywhere in a key after the first character', async () => {
    for (const k of ['foo@', 'foo@@bar', 'foo@bar@baz']) {
      const s = await continues([parent, ['tracestate', `${k}=1,bar=2`]]);
      expect(s.tracestate).toEqual([
        [k, '1'],
        ['bar', '2'],
      ]);
    }
  });

  it('keeps 32 members and discards 33', async () => {
    const members = (n: number) =>
      Array.from({ length: n }, (_, i) => `bar${String(i + 1).padStart(2, '0')}=${String(i + 1).padStart(2, '0')}`);
    const split = (list: string[]): Array<[string, string]> =>
      [list.slice(0, 10), list.slice(10, 20), list.slice(20, 30), list.slice(30)].map(
        (part) => ['tracestate', part.join(',')] as [string, string],
      );
    expect((await continues([parent, ...split(members(32))])).tracestate).toHaveLength(32);
    expect((await continues([parent, ...split(members(33))])).tracestate).toEqual([]);
  });

  it('accepts keys up to 256 characters and discards the header for 257', async () => {
    for (const k of ['z'.repeat(256), `${'t'.repeat(241)}@${'v'.repeat(14)}`, `${'t'.repeat(242)}@v`, `t@${'v'.repeat(15)}`]) {
      const s = await continues([parent, ['tracestate', 'foo=1'], ['tracestate', `${k}=1`]]);
      expect(s.tracestate).toEqual([
        ['foo', '1'],
        [k, '1'],
      ]);
    }
    expect((await continues([parent, ['tracestate', 'foo=1'], ['tracestate', `${'z'.repeat(257)}=1`]])).tracestate).toEqual([]);
  });

  it('discards the whole header for an illegal value', async () => {
    for (const v of ['foo=bar=baz', 'foo=,bar=3', `foo=${'x'.repeat(257)}`, 'foo=a\tb', 'foo=a,b'])
      expect((await continues([parent, ['tracestate', v]])).tracestate).toEqual([]);
  });
});

describe('several outbound requests', () => {
  it("gives each its own parent id in the caller's trace", async () => {
    const { seen } = await through([['traceparent', TP()]], 3);
    expect(new Set(seen.map((s) => s.traceId))).toEqual(new Set([TRACE_ID]));
    expect(new Set(seen.map((s) => s.parentId)).size).toBe(3);
  });

  it('gives each its own parent id in a new trace when none or an invalid one came', async () => {
    for (const fields of [[], [['traceparent', TP('01', '0'.repeat(32))]]] as Array<Array<[string, string]>>) {
      const { seen } = await through(fields, 3);
      expect(new Set(seen.map((s) => s.traceId)).size).toBe(1);
      expect(seen[0]!.traceId).not.toBe('0'.repeat(32));
      expect(new Set(seen.map((s) => s.parentId)).size).toBe(3);
    }
  });
});

describe('traceresponse (Level 2)', () => {
  it("names the service's own span in the caller's trace, with the flags it propagates", async () => {
    const { seen, response } = await through([['traceparent', TP('02')]]);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(String(response.headers.traceresponse));
    expect(match?.[1]).toBe(TRACE_ID);
    expect(match?.[2]).not.toBe(PARENT_ID);
    expect(match?.[2]).not.toBe(seen[0]!.parentId);
    expect(match?.[3]).toBe('02');
  });

  it('tells the caller the new trace id when the trace was restarted', async () => {
    const { seen, response } = await through([['traceparent', TP('01', TRACE_ID, PARENT_ID, 'ff')]]);
    const answered = String(response.headers.traceresponse).split('-')[1];
    expect(answered).toBe(seen[0]!.traceId);
    expect(answered).not.toBe(TRACE_ID);
  });
});

describe('the service itself', () => {
  it('answers bad requests with a clear 4xx and calls nobody', async () => {
    const before = callbacks.size;
    expect((await post(service.url, [], 'not json')).status).toBe(400);
    expect((await post(service.url, [], JSON.stringify({ url: harnessUrl }))).status).toBe(400);
    expect((await post(service.url, [], JSON.stringify([{ url: 'file:///etc/passwd', arguments: [] }]))).status).toBe(400);
    let nested: unknown = [];
    for (let i = 0; i < 20; i++) nested = [{ url: `${harnessUrl}/deep`, arguments: nested }];
    expect((await post(service.url, [], JSON.stringify(nested))).status).toBe(400);
    expect(callbacks.size).toBe(before);
  });
});
