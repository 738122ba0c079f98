// Sliding windows over an array, as more_itertools.windowed does.
export function windowed(items, size) {
  const out = [];
  for (let i = 0; i + size <= items.length; i++) {
    out.push(items.slice(i, i + size));
  }
  return out;
}

export function windowSums(items, size) {
  return windowed(items, size).map((w) => w.reduce((a, b) => a + b, 0));
}
