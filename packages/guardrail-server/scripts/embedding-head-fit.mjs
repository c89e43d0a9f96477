// The head fit shared by train-embedding-head.mjs (word-vector features) and
// bench/guardrail-eval/use-encoder.mjs (sentence-encoder embeddings): standardise the features,
// then logistic regression (hidden 0) or one ReLU hidden layer, Adam, class-balanced loss, L2.
// Returns the head's numeric fields in the layout `headScore` (dist/embedding) reads.

/**
 * @param {{ X: ArrayLike<number>[], Y: number[], hidden: number, epochs: number, log?: (epoch: number) => void }} options
 */
export function fitEmbeddingHead({ X, Y, hidden, epochs, log = () => {} }) {
  const n = X[0].length;
  const mean = new Float64Array(n);
  const sq = new Float64Array(n);
  for (const x of X) for (let j = 0; j < n; j++) mean[j] += x[j];
  for (let j = 0; j < n; j++) mean[j] /= X.length;
  for (const x of X) for (let j = 0; j < n; j++) sq[j] += (x[j] - mean[j]) ** 2;
  const scale = Array.from(sq, (s) => Math.sqrt(s / X.length) || 1);
  const Z = X.map((x) => Float64Array.from(x, (v, j) => (v - mean[j]) / scale[j]));
  const pos = Y.filter(Boolean).length;

  // Logistic regression (or one ReLU hidden layer with --hidden N), Adam, class-balanced loss, L2.
  const H = hidden;
  const P = H > 0 ? H * n + H + H + 1 : n + 1; // all parameters in one array
  const theta = new Float64Array(P);
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  if (H > 0) for (let i = 0; i < H * n; i++) theta[i] = (rand() - 0.5) * 2 * Math.sqrt(6 / (n + H));
  if (H > 0) for (let u = 0; u < H; u++) theta[H * n + H + u] = (rand() - 0.5) * 0.2;
  const m = new Float64Array(P);
  const v = new Float64Array(P);
  const lr = H > 0 ? 0.003 : 0.01;
  const l2 = 1e-4;
  const posW = (Z.length - pos) / pos / 2;
  const order = [...Z.keys()];
  let step = 0;
  const batch = 64;
  const act = new Float64Array(Math.max(H, 1));
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const k = Math.floor(rand() * (i + 1));
      [order[i], order[k]] = [order[k], order[i]];
    }
    for (let s = 0; s < order.length; s += batch) {
      const g = new Float64Array(P);
      const end = Math.min(order.length, s + batch);
      for (let q = s; q < end; q++) {
        const z = Z[order[q]];
        const y = Y[order[q]];
        let a = theta[P - 1];
        if (H > 0) {
          for (let u = 0; u < H; u++) {
            let h = theta[H * n + u];
            const base = u * n;
            for (let j = 0; j < n; j++) h += theta[base + j] * z[j];
            act[u] = h > 0 ? h : 0;
            a += theta[H * n + H + u] * act[u];
          }
        } else for (let j = 0; j < n; j++) a += theta[j] * z[j];
        const e = (1 / (1 + Math.exp(-a)) - y) * (y ? posW : 1);
        g[P - 1] += e;
        if (H > 0) {
          for (let u = 0; u < H; u++) {
            g[H * n + H + u] += e * act[u];
            if (act[u] <= 0) continue;
            const eu = e * theta[H * n + H + u];
            g[H * n + u] += eu;
            const base = u * n;
            for (let j = 0; j < n; j++) g[base + j] += eu * z[j];
          }
        } else for (let j = 0; j < n; j++) g[j] += e * z[j];
      }
      step++;
      const c1 = 1 - 0.9 ** step;
      const c2 = 1 - 0.999 ** step;
      for (let j = 0; j < P; j++) {
        const gj = g[j] / (end - s) + (j < P - 1 ? l2 * theta[j] : 0);
        m[j] = 0.9 * m[j] + 0.1 * gj;
        v[j] = 0.999 * v[j] + 0.001 * gj * gj;
        theta[j] -= (lr * (m[j] / c1)) / (Math.sqrt(v[j] / c2) + 1e-8);
      }
    }
    log(epoch + 1);
  }

  return {
    mean: Array.from(mean),
    scale,
    ...(H > 0
      ? {
          hidden: { size: H, weights: Array.from(theta.subarray(0, H * n)), bias: Array.from(theta.subarray(H * n, H * n + H)) },
          weights: Array.from(theta.subarray(H * n + H, H * n + 2 * H)),
        }
      : { weights: Array.from(theta.subarray(0, n)) }),
    bias: theta[P - 1],
  };
}
