/** A tiny seeded PRNG (mulberry32) and text generators for the property-style tests. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T,>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

/** Characters that stress the grammar: sigils, spaces, punctuation, letters, a surrogate pair. */
export const ALPHABET = ['@', '#', ' ', '\n', '\t', '.', ',', ')', '(', '"', 'a', 'b', 'S', 'x', '1', '_', '-', 'é', '😀', '\u00a0'];

export function randomText(r: ReturnType<typeof rng>, maxLength = 40, alphabet = ALPHABET): string {
  const length = r.int(maxLength + 1);
  let text = '';
  for (let i = 0; i < length; i++) text += r.pick(alphabet);
  return text;
}
