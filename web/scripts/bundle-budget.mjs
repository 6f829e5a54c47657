#!/usr/bin/env node
/**
 * Front-end performance budget for `/` (docs/web-landing.md).
 *
 * Initial JS of the landing page = the entry chunk (index.html) + the landing route chunk + every
 * chunk they import statically (transitively), read from Vite's manifest and gzip-sized with zlib
 * (default level). It must stay within BUDGET_KB (1 KB = 1000 bytes, as Vite prints). Also checked:
 * Firebase is not among those chunks (it loads lazily), and no icon font other than woff2 is shipped.
 *
 * Usage (from web/): npm run test:budget
 *   Builds with `vite build --mode emulator` into node_modules/.cache/bundle-budget (never touches
 *   dist/, which the local stack serves) and checks that. BUDGET_DIST=dist checks an existing build
 *   instead (it must have been built with the manifest on, which vite.config.ts does).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BUDGET_KB = 170;
export const ENTRY = 'index.html';
export const LANDING_ROUTE = 'src/features/landing/routes/LandingPage.tsx';

/** Manifest keys of `roots` and of everything they import statically, in discovery order. */
export function staticClosure(manifest, roots) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the Vite manifest`);
    seen.add(key);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  roots.forEach(visit);
  return [...seen];
}

/** The chunks `/` loads before the landing page can render, with their gzip sizes. */
export function measureLanding(distDir) {
  const manifest = JSON.parse(readFileSync(join(distDir, '.vite', 'manifest.json'), 'utf8'));
  const keys = staticClosure(manifest, [ENTRY, LANDING_ROUTE]);
  const js = keys.map((key) => {
    const file = manifest[key].file;
    const bytes = readFileSync(join(distDir, file));
    return { key, file, raw: bytes.length, gzip: gzipSync(bytes).length };
  });
  const css = [...new Set(keys.flatMap((key) => manifest[key].css ?? []))].map((file) => {
    const bytes = readFileSync(join(distDir, file));
    return { file, raw: bytes.length, gzip: gzipSync(bytes).length };
  });
  return { keys, js, css, totalGzip: js.reduce((sum, c) => sum + c.gzip, 0) };
}

export function checkBudget(distDir, budgetKb = BUDGET_KB) {
  const result = measureLanding(distDir);
  const failures = [];
  if (result.totalGzip > budgetKb * 1000) {
    failures.push(`initial JS for / is ${(result.totalGzip / 1000).toFixed(1)} KB gzip, over the ${budgetKb} KB budget`);
  }
  const firebase = result.js.filter((c) => /firebase/i.test(c.key) || /firebase/i.test(c.file));
  if (firebase.length > 0) {
    failures.push(`Firebase is loaded up front by /: ${firebase.map((c) => c.file).join(', ')}`);
  }
  const fonts = readdirSync(join(distDir, 'assets')).filter((f) => /\.(eot|ttf|woff|otf)$/i.test(f) || /remixicon.*\.svg$/i.test(f));
  if (fonts.length > 0) {
    failures.push(`only woff2 fonts may ship (icons: woff2 or SVG): ${fonts.join(', ')}`);
  }
  return { ...result, failures };
}

function kb(bytes) {
  return `${(bytes / 1000).toFixed(1).padStart(7)} KB`;
}

function main() {
  const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  let distDir;
  if (process.env.BUDGET_DIST) {
    distDir = resolve(webDir, process.env.BUDGET_DIST);
  } else {
    distDir = join(webDir, 'node_modules', '.cache', 'bundle-budget');
    console.log(`Building into ${distDir} ...`);
    execFileSync(
      process.execPath,
      [join(webDir, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--mode', 'emulator', '--outDir', distDir, '--emptyOutDir', '--logLevel', 'warn'],
      { cwd: webDir, stdio: 'inherit' },
    );
  }
  if (!existsSync(join(distDir, '.vite', 'manifest.json'))) {
    console.error(`No ${join(distDir, '.vite', 'manifest.json')}: build with the manifest on (vite.config.ts build.manifest).`);
    process.exit(2);
  }

  const result = checkBudget(distDir);
  console.log(`\nInitial JS for / (entry + landing route + their static imports), gzip:`);
  for (const c of result.js) console.log(`  ${kb(c.gzip)}  (${kb(c.raw)} raw)  ${c.file}`);
  console.log(`  ${kb(result.totalGzip)}  total  (budget ${BUDGET_KB} KB)`);
  for (const c of result.css) console.log(`  css ${kb(c.gzip)} gzip  ${c.file}`);
  if (result.failures.length > 0) {
    for (const f of result.failures) console.error(`FAIL: ${f}`);
    process.exit(1);
  }
  console.log('Bundle budget OK');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
