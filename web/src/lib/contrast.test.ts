import { describe, expect, it } from 'vitest';
import { AA_TEXT, contrastRatio, mix, parseHex, readableOn, tint } from './contrast';

describe('contrast', () => {
  it('parses #rgb and #rrggbb, refuses the rest', () => {
    expect(parseHex('#FF3E00')).toEqual([255, 62, 0]);
    expect(parseHex('#fff')).toEqual([255, 255, 255]);
    expect(parseHex('blue')).toBeNull();
    expect(parseHex('#12345')).toBeNull();
  });

  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    // The default agent colour fails AA as text on white and on its own tint (issue 18).
    expect(contrastRatio('#FF3E00', '#ffffff')).toBeLessThan(AA_TEXT);
    expect(contrastRatio('#FF3E00', tint('#FF3E00'))).toBeLessThan(AA_TEXT);
  });

  it('mixes and tints', () => {
    expect(mix('#000000', '#ffffff', 0.5)).toBe('#808080');
    expect(tint('#FF3E00', 0)).toBe('#ffffff');
    expect(tint('#FF3E00', 1)).toBe('#ff3e00');
  });

  it('darkens a colour just enough to be readable on its tint or on white', () => {
    for (const color of ['#FF3E00', '#4076D6', '#10B981', '#F59E0B', '#8B5CF6', '#EC4899', '#fff', '#123456']) {
      for (const background of [tint(color), '#ffffff']) {
        const text = readableOn(color, background);
        expect(contrastRatio(text, background), `${color} on ${background}`).toBeGreaterThanOrEqual(AA_TEXT);
      }
    }
    // Already readable colours are kept as they are.
    expect(readableOn('#1d4ed8', '#ffffff')).toBe('#1d4ed8');
    // Darkened, not replaced: the orange stays reddish.
    const [r, g, b] = parseHex(readableOn('#FF3E00', tint('#FF3E00')))!;
    expect(r).toBeGreaterThan(g);
    expect(r).toBeGreaterThan(b);
  });
});
