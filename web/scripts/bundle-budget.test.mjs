import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkBudget, ENTRY, LANDING_ROUTE, staticClosure } from './bundle-budget.mjs';

const dirs = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function fakeDist(manifest, files) {
  const dir = mkdtempSync(join(tmpdir(), 'budget-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.vite'), { recursive: true });
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, '.vite', 'manifest.json'), JSON.stringify(manifest));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const manifest = {
  [ENTRY]: { file: 'assets/index.js', isEntry: true, imports: ['_shared.js'], dynamicImports: [LANDING_ROUTE, 'src/lib/firebase-sdk.ts'] },
  _shared: { file: 'assets/unused.js' },
  '_shared.js': { file: 'assets/shared.js', imports: ['_deep.js'] },
  '_deep.js': { file: 'assets/deep.js' },
  [LANDING_ROUTE]: { file: 'assets/landing.js', imports: ['_shared.js', ENTRY], css: ['assets/landing.css'] },
  'src/lib/firebase-sdk.ts': { file: 'assets/firebase-sdk.js' },
};
const files = {
  'assets/index.js': 'entry();',
  'assets/shared.js': 'shared();',
  'assets/deep.js': 'deep();',
  'assets/landing.js': 'landing();',
  'assets/landing.css': '.x{}',
  'assets/firebase-sdk.js': 'x'.repeat(500_000),
};

describe('bundle budget', () => {
  it('follows static imports only (not dynamic ones), each chunk once', () => {
    expect(staticClosure(manifest, [ENTRY, LANDING_ROUTE])).toEqual([ENTRY, '_shared.js', '_deep.js', LANDING_ROUTE]);
  });

  it('sums the gzip sizes and passes a small build', () => {
    const result = checkBudget(fakeDist(manifest, files));
    expect(result.js.map((c) => c.file)).toEqual(['assets/index.js', 'assets/shared.js', 'assets/deep.js', 'assets/landing.js']);
    expect(result.totalGzip).toBe(result.js.reduce((s, c) => s + c.gzip, 0));
    expect(result.css.map((c) => c.file)).toEqual(['assets/landing.css']);
    expect(result.failures).toEqual([]);
  });

  it('fails over budget, with Firebase up front, or with non-woff2 icon fonts', () => {
    const random = randomBytes(200_000).toString('base64'); // incompressible: ~200 KB gzip
    const heavy = {
      ...manifest,
      '_deep.js': { file: 'assets/deep.js', imports: ['src/lib/firebase-sdk.ts'] },
    };
    const dir = fakeDist(heavy, { ...files, 'assets/deep.js': random, 'assets/remixicon.ttf': 'font' });
    const { failures } = checkBudget(dir, 170);
    expect(failures.join('\n')).toMatch(/over the 170 KB budget/);
    expect(failures.join('\n')).toMatch(/Firebase is loaded up front/);
    expect(failures.join('\n')).toMatch(/only woff2 fonts/);
  });
});
