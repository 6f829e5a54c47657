import type { Usage } from '../types';

const MICROS_PER_DOLLAR = 1_000_000;

/** "812 tokens" (input + output, grouped thousands; "1 token"). */
export function formatTokens(count: number): string {
  const n = Math.max(0, Math.round(count));
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'token' : 'tokens'}`;
}

/**
 * Dollars from micro-dollars with 4 decimals ("$0.0009"), or more (up to 6, one micro-dollar) when the
 * amount is smaller than $0.0001, so a non-zero cost is never shown as $0.0000 ("$0.00004").
 * Rounds half up with integer arithmetic (no binary floating-point surprises).
 */
export function formatCost(totalMicros: number): string {
  const micros = Math.max(0, Math.round(totalMicros));
  let decimals = 4;
  while (decimals < 6 && micros > 0 && roundTo(micros, decimals) === 0) decimals++;
  const units = roundTo(micros, decimals);
  const scale = 10 ** decimals;
  const whole = Math.floor(units / scale);
  const fraction = String(units % scale).padStart(decimals, '0');
  return `$${whole.toLocaleString('en-US')}.${fraction}`;
}

/** micros rounded half up to `decimals` decimal places of a dollar, as an integer count of those units. */
function roundTo(micros: number, decimals: number): number {
  const step = MICROS_PER_DOLLAR / 10 ** decimals;
  return Math.floor((micros + step / 2) / step);
}

/** The line under an answer: "812 tokens · $0.0009". */
export function formatUsage(usage: Pick<Usage, 'inputTokens' | 'outputTokens' | 'totalMicros'>): string {
  return `${formatTokens((usage.inputTokens ?? 0) + (usage.outputTokens ?? 0))} · ${formatCost(usage.totalMicros ?? 0)}`;
}

/**
 * The parts of a marketplace answer's price, when it has a markup or a greeting cost:
 * "usage $0.0009 + service fee $0.00003 + markup $0.0002 + greeting $0.5000" ('' otherwise: an owner's answer
 * shows only its total).
 */
export function formatPriceParts(usage: Pick<Usage, 'costMicros' | 'feeMicros' | 'markupMicros' | 'greetingMicros'>): string {
  const markup = usage.markupMicros ?? 0;
  const greeting = usage.greetingMicros ?? 0;
  if (markup <= 0 && greeting <= 0) return '';
  const parts = [`usage ${formatCost(usage.costMicros ?? 0)}`, `service fee ${formatCost(usage.feeMicros ?? 0)}`];
  parts.push(`markup ${formatCost(markup)}`);
  if (greeting > 0) parts.push(`greeting ${formatCost(greeting)}`);
  return parts.join(' + ');
}

/** The model tag's text: the model name, marked when it is the simulator. */
export function modelLabel(model: string, simulated: boolean): string {
  return simulated ? `Simulated model (${model})` : `Model: ${model}`;
}

/** A conversation title from the first message: its first line, at most 60 characters. */
export function titleFromMessage(content: string): string {
  const firstLine = content.trim().split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (!firstLine) return 'New conversation';
  return firstLine.length > 60 ? `${firstLine.slice(0, 59).trimEnd()}…` : firstLine;
}

/**
 * Seconds from a Retry-After header (delay-seconds or an HTTP date), rounded up, at least 1;
 * undefined when absent or unreadable.
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(1, Math.ceil(Number(trimmed)));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(1, Math.ceil((date - now) / 1000));
}

/** The 429 text. */
export function rateLimitMessage(seconds: number | undefined): string {
  if (seconds === undefined) return "You're sending messages too fast. Try again in a few seconds.";
  return `You're sending messages too fast. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;
}
