// A seeded fuzzer for the runner HTTP service (`baton serve`): malformed and hostile requests,
// each answer judged against the service's promises. One source for the bounded test in
// `npm test` and the long benchmark in bench/runner-fuzz.
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';

/** What the fuzzer knows about the service under test. */
export interface RunnerFuzzTarget {
  /** `http://127.0.0.1:<port>` (loopback only: the fuzzer refuses anything else). */
  url: string;
  /** The attacker's own valid bearer token (its tenant may run agents). */
  token: string;
  /** An agent the service runs. */
  agentId: string;
  /** A thread of another tenant (the victim). */
  victimThreadId: string;
  /** Text that exists only in the victim's thread; no answer to the attacker may contain it. */
  victimMarkers: string[];
}

/** Options for {@link runRunnerFuzz}. */
export interface RunnerFuzzOptions {
  target: RunnerFuzzTarget;
  /** Requests to send. */
  count: number;
  /** Seed of the case generator (same seed, same requests). */
  seed: number;
  /** Requests in flight at once; default 8. */
  concurrency?: number;
  /** An answer slower than this counts as a hang; default 60000 ms. */
  timeoutMs?: number;
  /** Share of requests that are valid runs (they cost a real run); default 0.03. */
  validRunShare?: number;
  /** Statuses of 500 and above that are documented and allowed (e.g. 503 while closing); default none. */
  allowed5xx?: readonly number[];
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number) => void;
  progressEvery?: number;
}

/** What a fuzz run found. */
export interface RunnerFuzzReport {
  seed: number;
  requests: number;
  /** Answers by HTTP status (`0`: no HTTP answer; the connection was closed). */
  byStatus: Record<string, number>;
  /** Requests by case kind. */
  byKind: Record<string, number>;
  /** Answers with a status of 500 or above not in `allowed5xx`. */
  serverErrors: number;
  /** Requests not answered within `timeoutMs`. */
  hangs: number;
  /** Connections closed without an answer where one was owed. */
  dropped: number;
  /** Broken promises, first 50, each `kind: what` (never a whole body). */
  problems: string[];
  problemCount: number;
}

interface FuzzCase {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Raw bytes for a socket (malformed HTTP); the answer is parsed from the wire. */
  raw?: Buffer;
  /** A connection closed with no answer is acceptable for this case (e.g. a body past the limit). */
  mayDrop?: boolean;
  /** Statuses this case may get (undefined: any 2xx-4xx). */
  expect?: number[];
}

/** mulberry32: small, fast, good enough to vary inputs reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INVISIBLE = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u202e',
  '\u2066',
  '\udb40\udc41',
  '\ufe0f',
  '\u0000',
  '\u001b',
];
const WRONG_VALUES: unknown[] = [0, -1, 1e308, true, null, [], {}, [1, 2], { a: 1 }, '', ' ', 'x'.repeat(300)];
const PATHS = [
  '/v1/runs',
  '/v1/threads/x',
  '/v1/threads/',
  '/v1/threads',
  '/healthz',
  '/',
  '/v1',
  '/v1/runs/x',
  '/v1/threads/x/y',
  '/v2/runs',
  '/%',
  '/v1/threads/%E0%A4%A',
  '/v1/threads/..%2F..%2Fetc',
  '/v1/runs?__proto__[x]=1',
  '/healthz?' + 'q'.repeat(2000),
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

/** Builds the case generator for a target. */
function caseGenerator(target: RunnerFuzzTarget, seed: number, validRunShare: number): () => FuzzCase {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  const auth = { authorization: `Bearer ${target.token}` };
  const json = { 'content-type': 'application/json', ...auth };
  const post = (kind: string, body: string | Buffer, extra: Partial<FuzzCase> = {}): FuzzCase => ({
    kind,
    method: 'POST',
    path: '/v1/runs',
    headers: { ...json, ...(extra.headers ?? {}) },
    body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    ...(extra.expect ? { expect: extra.expect } : {}),
    ...(extra.mayDrop ? { mayDrop: true } : {}),
  });
  const valid = () => ({ agent_id: target.agentId, input: 'hello' });
  const invisible = (s: string) => {
    const at = int(s.length + 1);
    return s.slice(0, at) + pick(INVISIBLE) + s.slice(at);
  };
  const nest = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

  const kinds: Array<[number, () => FuzzCase]> = [
    [validRunShare, () => post('valid-run', JSON.stringify(valid()), { expect: [200] })],
    [
      0.1,
      () => {
        const text = JSON.stringify(valid());
        // A UTF-8 byte order mark is dropped by the decoder: that body is a valid run.
        if (rand() < 0.05) return post('malformed-json', `\ufeff${text}`, { expect: [200] });
        const variants = [
          text.slice(0, int(text.length)),
          `${text}}`,
          text.replace(':', ''),
          '{"agent_id":',
          'null',
          '[]',
          '"str"',
          '1',
          'NaN',
          '{"a":1,}',
          text.replace('"hello"', "'hello'"),
          Buffer.from([0xff, 0xfe, 0x00]).toString('latin1'),
        ];
        return post('malformed-json', pick(variants), { expect: [400] });
      },
    ],
    [
      0.05,
      () =>
        post(
          'invalid-utf8',
          Buffer.concat([Buffer.from('{"agent_id":"'), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28]), Buffer.from('","input":"x"}')]),
          { expect: [400] },
        ),
    ],
    [0.015, () => post('huge-body', Buffer.alloc(1024 * 1024 + 1 + int(512 * 1024), 0x61), { expect: [413], mayDrop: true })],
    [
      0.02,
      () =>
        post('huge-input', JSON.stringify({ agent_id: target.agentId, input: 'y'.repeat(512 * 1024 + 1 + int(1000)) }), { expect: [400] }),
    ],
    [
      0.06,
      () => {
        const depth = 65 + int(rand() < 0.2 ? 50_000 : 500);
        return post('deep-nesting', rand() < 0.5 ? nest(depth, '[', ']') : `{"agent_id":${nest(depth, '{"a":', '}')}}`, { expect: [400] });
      },
    ],
    [
      0.06,
      () => {
        const key = pick(['k', '\u200b', '__proto__', 'é']).repeat(1000 + int(rand() < 0.1 ? 300_000 : 20_000));
        return post('long-key', JSON.stringify({ ...valid(), [key]: 1 }), { expect: [400, 413], mayDrop: true });
      },
    ],
    [
      0.07,
      () => {
        const bodies = [
          '{"__proto__":{"polluted":true},"agent_id":"AGENT","input":"x"}',
          '{"agent_id":"AGENT","input":"x","constructor":{"prototype":{"polluted":true}}}',
          '{"agent_id":"AGENT","input":"x","__proto__":null}',
          '{"__proto__":[],"agent_id":"AGENT","input":"x"}',
          '{"agent_id":{"__proto__":{"toString":1}},"input":"x"}',
          '{"agent_id":"AGENT","input":"x","prototype":1}',
        ].map((b) => b.replace('AGENT', target.agentId));
        return post('proto-keys', pick(bodies), { expect: [400] });
      },
    ],
    [
      0.08,
      () => {
        const field = pick(['agent_id', 'thread_id', 'agent_version', 'input']);
        const body: Record<string, unknown> = { ...valid() };
        body[field] = invisible(typeof body[field] === 'string' ? (body[field] as string) : 'thread-x');
        // An invisible character in the input is still a valid run; elsewhere it names nothing.
        return post('invisible-chars', JSON.stringify(body), field === 'input' ? { expect: [200] } : { expect: [400, 404] });
      },
    ],
    [
      0.08,
      () => {
        const field = pick(['agent_id', 'input', 'thread_id', 'agent_version', 'stream', 'extra']);
        const picked = pick(WRONG_VALUES);
        // `stream: true` is a valid (streamed) run: the wrong value for it is any non-boolean.
        const value = field === 'stream' && typeof picked === 'boolean' ? 1 : picked;
        // A string input of any content (even empty) is a valid run; a string elsewhere may name nothing.
        const expect = field === 'input' && typeof value === 'string' ? [200, 400] : [400, 404];
        return post('wrong-types', JSON.stringify({ ...valid(), [field]: value }), { expect });
      },
    ],
    [
      0.05,
      () =>
        post(
          'unknown-agent',
          JSON.stringify({
            agent_id: pick(['io.nobody', 'x', target.agentId.toUpperCase(), `${target.agentId}.x`, '../../etc/passwd', '*']),
            input: 'x',
          }),
          { expect: [400, 404] },
        ),
    ],
    [
      0.08,
      () =>
        rand() < 0.5
          ? post('victim-thread-run', JSON.stringify({ ...valid(), thread_id: target.victimThreadId }), { expect: [404] })
          : {
              kind: 'victim-thread-read',
              method: 'GET',
              path: `/v1/threads/${encodeURIComponent(target.victimThreadId)}`,
              headers: auth,
              expect: [404],
            },
    ],
    [
      0.06,
      () => {
        const ids = [
          '',
          '%00',
          '%20',
          '..',
          '%2e%2e',
          'a'.repeat(200),
          'a'.repeat(257),
          encodeURIComponent('\u202ethread'),
          `${target.victimThreadId}%20`,
          target.victimThreadId.toUpperCase(),
          encodeURIComponent(`${target.victimThreadId}\u200b`),
          '__proto__',
          'constructor',
        ];
        return { kind: 'thread-read', method: 'GET', path: `/v1/threads/${pick(ids)}`, headers: auth, expect: [400, 404] };
      },
    ],
    [
      0.05,
      () => {
        const types = [
          'text/plain',
          'application/json; charset=latin1',
          'application/x-www-form-urlencoded',
          'application/jsonx',
          '',
          'application/json;charset="utf-16"',
          'multipart/form-data; boundary=x',
        ];
        return post('content-type', JSON.stringify(valid()), { headers: { 'content-type': pick(types) }, expect: [400, 415] });
      },
    ],
    [
      0.06,
      () => {
        const headers = [
          {},
          { authorization: 'Bearer wrong-token-0123456789' },
          { authorization: `Basic ${target.token}` },
          { authorization: `Bearer ${target.token}x` },
          { authorization: `Bearer` },
          { authorization: `Bearer ${'z'.repeat(7000)}` },
          { authorization: `Bearer ${target.token.slice(0, -1)}` },
        ];
        const h = pick(headers) as Record<string, string | string[]>;
        const read = rand() < 0.5;
        return {
          kind: 'auth',
          method: read ? 'GET' : 'POST',
          path: read ? `/v1/threads/${encodeURIComponent(target.victimThreadId)}` : '/v1/runs',
          headers: { 'content-type': 'application/json', ...h },
          ...(read ? {} : { body: Buffer.from(JSON.stringify(valid())) }),
          expect: [400, 401],
        };
      },
    ],
    [
      0.03,
      () =>
        post('identity-headers', JSON.stringify({ ...valid(), thread_id: target.victimThreadId }), {
          headers: { 'x-baton-tenant': 'victim', 'x-baton-subject': 's', 'x-baton-roles': 'admin' },
          expect: [400, 404],
        }),
    ],
    [
      0.06,
      () => {
        const method = pick(METHODS);
        const path = pick(PATHS);
        return {
          kind: 'method-path',
          method,
          path,
          headers: json,
          ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.from('{}') }),
        };
      },
    ],
    [
      0.04,
      () => {
        const raws = [
          'GARBAGE\r\n\r\n',
          'POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
          'POST /v1/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`,
          'GET /v1/threads/x HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
          'GET / HTTP/9.9\r\n\r\n',
          `GET /${'p'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        ];
        return { kind: 'raw-http', method: 'RAW', path: '', headers: {}, raw: Buffer.from(pick(raws), 'latin1'), mayDrop: true };
      },
    ],
  ];
  const total = kinds.reduce((s, [w]) => s + w, 0);
  return () => {
    let r = rand() * total;
    for (const [weight, make] of kinds) {
      if ((r -= weight) <= 0) return make();
    }
    return kinds[kinds.length - 1]![1]();
  };
}

interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(base: URL, c: FuzzCase, timeoutMs: number): Promise<Answer | 'hang' | 'dropped'> {
  if (c.raw) return sendRaw(base, c.raw, timeoutMs);
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: Answer | 'hang' | 'dropped') => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      }
    };
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: c.method,
        path: c.path,
        headers: { ...c.headers, ...(c.body ? { 'content-length': String(c.body.length) } : {}) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', () => done('dropped'));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done('hang');
    }, timeoutMs);
    req.on('error', () => done('dropped'));
    req.end(c.body);
  });
}

function sendRaw(base: URL, raw: Buffer, timeoutMs: number): Promise<Answer | 'hang' | 'dropped'> {
  return new Promise((resolve) => {
    const socket = connect(Number(base.port), base.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('hang');
    }, timeoutMs);
    socket.on('connect', () => socket.end(raw));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (!m) return resolve('dropped');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const type = /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1];
      resolve({ status: Number(m[1]), contentType: type, body: text.slice(head.length + 4) });
    });
  });
}

/** What is wrong with an answer, or undefined. */
function judge(c: FuzzCase, a: Answer, target: RunnerFuzzTarget, allowed5xx: readonly number[]): string | undefined {
  if (a.status >= 500 && !allowed5xx.includes(a.status)) return `${a.status} answer`;
  for (const marker of target.victimMarkers) if (a.body.includes(marker)) return 'the answer carries another tenant’s data';
  if (c.expect && !c.expect.includes(a.status)) return `status ${a.status}, expected ${c.expect.join('/')}`;
  if (c.method === 'HEAD' || a.status === 204) return undefined;
  if (!a.contentType?.toLowerCase().startsWith('application/json')) return `status ${a.status} with content-type ${String(a.contentType)}`;
  let value: unknown;
  try {
    value = JSON.parse(a.body);
  } catch {
    return `status ${a.status} with a body that is not JSON`;
  }
  if (a.status >= 400) {
    const e = (value as { error?: { code?: unknown; message?: unknown } })?.error;
    const keys = value && typeof value === 'object' ? Object.keys(value) : [];
    if (keys.length !== 1 || typeof e?.code !== 'string' || typeof e.message !== 'string' || e.code === '')
      return `status ${a.status} without { error: { code, message } }`;
    if (a.body.length > 64 * 1024) return `error answer of ${a.body.length} bytes`;
  }
  if (c.kind === 'valid-run' && a.status === 200 && typeof (value as { thread_id?: unknown }).thread_id !== 'string')
    return 'a run answer without thread_id';
  return undefined;
}

/**
 * Sends `count` generated requests to the service and judges every answer: never a 5xx (other
 * than `allowed5xx`), always a well-formed JSON error for 4xx, the expected status per case, no
 * hang, and never a byte of the victim tenant's data.
 */
export async function runRunnerFuzz(options: RunnerFuzzOptions): Promise<RunnerFuzzReport> {
  const base = new URL(options.target.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname))
    throw new Error(`runRunnerFuzz fuzzes loopback services only; got ${base.hostname}`);
  const next = caseGenerator(options.target, options.seed, options.validRunShare ?? 0.03);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const allowed5xx = options.allowed5xx ?? [];
  const report: RunnerFuzzReport = {
    seed: options.seed,
    requests: 0,
    byStatus: {},
    byKind: {},
    serverErrors: 0,
    hangs: 0,
    dropped: 0,
    problems: [],
    problemCount: 0,
  };
  const problem = (kind: string, what: string) => {
    report.problemCount++;
    if (report.problems.length < 50) report.problems.push(`${kind}: ${what}`);
  };
  let issued = 0;
  const worker = async () => {
    while (issued < options.count) {
      issued++;
      const c = next();
      report.byKind[c.kind] = (report.byKind[c.kind] ?? 0) + 1;
      const a = await send(base, c, timeoutMs);
      report.requests++;
      if (options.onProgress && report.requests % (options.progressEvery ?? 1000) === 0) options.onProgress(report.requests);
      if (a === 'hang') {
        report.hangs++;
        problem(c.kind, `no answer within ${timeoutMs} ms`);
        continue;
      }
      if (a === 'dropped') {
        report.byStatus['0'] = (report.byStatus['0'] ?? 0) + 1;
        if (!c.mayDrop) {
          report.dropped++;
          problem(c.kind, 'connection closed without an answer');
        }
        continue;
      }
      report.byStatus[String(a.status)] = (report.byStatus[String(a.status)] ?? 0) + 1;
      if (a.status >= 500 && !allowed5xx.includes(a.status)) report.serverErrors++;
      const wrong = judge(c, a, options.target, allowed5xx);
      if (wrong) problem(c.kind, wrong);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return report;
}
