// Prints one line per Lighthouse JSON report: performance score, LCP, TBT, CLS, FCP.
// Exit 1 when the score is below the minimum given as the second argument.
import { readFileSync } from 'node:fs';

const [file, minArg = '0'] = process.argv.slice(2);
const lhr = JSON.parse(readFileSync(file, 'utf8'));
const audit = (id) => lhr.audits[id];
const ms = (id) => `${Math.round(audit(id).numericValue)} ms`;
const score = Math.round((lhr.categories.performance.score ?? 0) * 100);
const min = Number(minArg);

console.log(
  [
    lhr.finalDisplayedUrl ?? lhr.finalUrl,
    `performance ${score}`,
    `LCP ${ms('largest-contentful-paint')}`,
    `TBT ${ms('total-blocking-time')}`,
    `CLS ${audit('cumulative-layout-shift').numericValue.toFixed(3)}`,
    `FCP ${ms('first-contentful-paint')}`,
  ].join('  |  '),
);
if (lhr.runtimeError) console.error(`runtime error: ${lhr.runtimeError.message}`);
if (score < min) {
  console.error(`performance ${score} is below ${min}`);
  process.exit(1);
}
