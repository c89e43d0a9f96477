// An open-loop, evenly paced load driver for the fixed-rate runs of guardrail-load.
//
// Why not autocannon's `overallRate`: autocannon 8 splits the rate over the connections and lets
// each connection send its share back to back at the start of every second, then pause until
// the next one (lib/httpClient.js: `reqsMadeThisSecond < rate`, reset by a 1 s setInterval). At
// 1,000 req/s over 50 connections that is a burst of 1,000 requests every second at full speed,
// so the last of them queue for ~1,000 / (flat-out req/s) seconds: p99 measured the burst, not a
// 1,000 req/s load. On top of that it "corrects" coordinated omission with an expected interval
// of ceil(1 / per-connection rate) = 1 ms, which adds a synthetic sample for every millisecond of
// every response above 1 ms and inflates the tail further.
//
// This driver sends request i at start + i / rate (checked by a 1 ms timer, so requests leave
// within ~1 ms of their slot without a busy loop stealing the server's CPU), over a pool of keep-alive connections, one request in
// flight per connection (no pipelining; a request waits for a free connection, which counts
// against the server). Latency is measured from the request's scheduled slot, so a stall on
// either side is charged in full to every request it delays (no coordinated omission), and is
// also reported from the moment the request was written (`service` latency).
import { Agent, request as httpRequest } from 'node:http';

/**
 * Sends `rate` req/s for `duration` seconds to `url` + path, cycling through `requests`
 * ({ method, path, headers, body }). Resolves with latencies in ms (p50/p90/p99/max, from the
 * scheduled slot and from the write), achieved rate, status counts and errors.
 */
export async function pacedLoad(url, { rate, duration, connections = 64, requests }) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const { hostname, port } = new URL(url);
  const total = Math.round(rate * duration);
  const interval = 1000 / rate;
  const fromSlot = new Float64Array(total);
  const fromWrite = new Float64Array(total);
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  const bodies = requests.map((r) => Buffer.from(r.body));

  const start = performance.now() + 50;
  let next = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));

  const send = (i) => {
    const slot = start + i * interval;
    const spec = requests[i % requests.length];
    const body = bodies[i % bodies.length];
    let written = 0;
    const req = httpRequest(
      { agent, hostname, port, method: spec.method, path: spec.path, headers: { ...spec.headers, 'content-length': body.length } },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          const now = performance.now();
          fromSlot[i] = now - slot;
          fromWrite[i] = now - written;
          if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
          if (++done === total) finish();
        });
      },
    );
    req.on('socket', () => (written = performance.now()));
    // A request that gets no answer in 10 s counts as an error rather than hanging the run.
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      errors++;
      fromSlot[i] = Number.NaN;
      if (++done === total) finish();
    });
    req.end(body);
  };

  const tick = () => {
    const now = performance.now();
    while (next < total && start + next * interval <= now) send(next++);
    if (next < total) setTimeout(tick, 1);
  };
  setTimeout(tick, 50);
  await finished;
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();

  const ok = (a) => Array.from(a).filter((v) => Number.isFinite(v));
  const slot = summarizeQ(ok(fromSlot));
  const write = summarizeQ(ok(fromWrite));
  return {
    requests: { average: total / elapsed, total },
    latency: slot,
    serviceLatency: write,
    non2xx,
    errors,
    timeouts: 0,
    duration,
    connections,
    /** Per request, in send order: ms from its scheduled slot to its answer (NaN on error). */
    slotLatencies: fromSlot,
  };
}

function summarizeQ(samples) {
  const sorted = samples.sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const r = (v) => Number(v.toFixed(2));
  return {
    p50: r(at(0.5)),
    p90: r(at(0.9)),
    p99: r(at(0.99)),
    max: r(sorted[sorted.length - 1]),
    mean: r(sorted.reduce((a, v) => a + v, 0) / sorted.length),
  };
}
