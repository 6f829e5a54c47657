/**
 * WCAG 2.x colour contrast (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio) for colours the app
 * does not choose itself, e.g. an agent's colour drawn as text.
 */

type Rgb = [number, number, number];

/** '#rgb' or '#rrggbb' (case-insensitive) → [r, g, b] in 0..255; anything else → null. */
export function parseHex(color: string): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (0 black … 1 white). */
export function relativeLuminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Contrast ratio of two hex colours, 1 … 21. */
export function contrastRatio(a: string, b: string): number {
  const ca = parseHex(a);
  const cb = parseHex(b);
  if (!ca || !cb) throw new Error(`not a hex colour: ${ca ? b : a}`);
  const [hi, lo] = [relativeLuminance(ca), relativeLuminance(cb)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** `color` mixed with `other`: weight 0 → color, 1 → other. */
export function mix(color: string, other: string, weight: number): string {
  const a = parseHex(color);
  const b = parseHex(other);
  if (!a || !b) throw new Error(`not a hex colour: ${a ? other : color}`);
  return toHex(a.map((v, i) => v + (b[i] - v) * weight) as Rgb);
}

/** A light tint of `color` (mostly white), for a background drawn in that colour. */
export function tint(color: string, amount = 0.1): string {
  return mix('#ffffff', color, amount);
}

/** WCAG AA for normal text. */
export const AA_TEXT = 4.5;

/**
 * `color`, darkened just enough (mixed with black in small steps) to reach `minRatio` against
 * `background`: the hue stays recognisable while the text stays readable.
 */
export function readableOn(color: string, background: string, minRatio = AA_TEXT): string {
  for (let step = 0; step <= 20; step += 1) {
    const candidate = step === 0 ? toHex(parseHex(color) ?? [0, 0, 0]) : mix(color, '#000000', step / 20);
    if (contrastRatio(candidate, background) >= minRatio) return candidate;
  }
  return '#000000';
}
