// A readable line diff (LCS) of two texts, with unchanged runs folded to a few lines of context.
export interface DiffLine {
  kind: ' ' | '+' | '-' | '…';
  text: string;
}

export function lineDiff(a: string, b: string, context = 3): DiffLine[] {
  const x = a.split('\n');
  const y = b.split('\n');
  // Trim the common head and tail: definitions differ in a few places, the LCS table stays small.
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  const n = xs.length;
  const m = ys.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = xs[i] === ys[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const mid: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && xs[i] === ys[j]) {
      mid.push({ kind: ' ', text: xs[i++] });
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) mid.push({ kind: '+', text: ys[j++] });
    else mid.push({ kind: '-', text: xs[i++] });
  }
  const all: DiffLine[] = [
    ...x.slice(0, head).map((text) => ({ kind: ' ' as const, text })),
    ...mid,
    ...x.slice(x.length - tail).map((text) => ({ kind: ' ' as const, text })),
  ];
  const keep = all.map(() => false);
  all.forEach((l, k) => {
    if (l.kind === ' ') return;
    for (let d = Math.max(0, k - context); d <= Math.min(all.length - 1, k + context); d++) keep[d] = true;
  });
  const out: DiffLine[] = [];
  all.forEach((l, k) => {
    if (keep[k]) out.push(l);
    else if (out.at(-1)?.kind !== '…') out.push({ kind: '…', text: '' });
  });
  return out;
}
