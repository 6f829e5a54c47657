import { describe, expect, it } from 'vitest';
import { AMOUNT_MESSAGES, checkAmount, isAmountSubmittable, parseAmount, toCents } from './amount';

describe('parseAmount', () => {
  it.each([
    ['25', 25],
    [' 0.5 ', 0.5],
    ['-3', -3],
    ['1e2', 100],
  ])('%j → %d', (raw, value) => expect(parseAmount(raw)).toBe(value));

  it.each(['', '   ', 'abc', '12abc', 'Infinity', '1e'])('%j is not a number', (raw) => {
    expect(parseAmount(raw)).toBeNaN();
  });
});

describe('toCents', () => {
  it('rounds amount × 100', () => {
    expect(toCents(25)).toBe(2500);
    expect(toCents(19.99)).toBe(1999);
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(1.005)).toBe(100); // 100.49999… rounds down
    expect(toCents(12.345)).toBe(1235);
  });
});

describe('isAmountSubmittable (button enabled)', () => {
  it.each([
    ['', false],
    ['abc', false],
    ['0', false],
    ['-5', false],
    ['0.3', true],
    ['25', true],
  ])('%j → %s', (raw, ok) => expect(isAmountSubmittable(raw)).toBe(ok));
});

describe('checkAmount', () => {
  it('requires an amount and a signed-in user', () => {
    expect(checkAmount('', true)).toEqual({ ok: false, problem: 'missing' });
    expect(checkAmount('10', false)).toEqual({ ok: false, problem: 'missing' });
    expect(AMOUNT_MESSAGES.missing).toEqual({
      title: 'Error',
      description: 'Please enter an amount to add funds and ensure you are logged in.',
    });
  });

  it('rejects non-numbers and amounts of 0 or less', () => {
    for (const raw of ['abc', '0', '-1']) expect(checkAmount(raw, true)).toEqual({ ok: false, problem: 'invalid' });
    expect(AMOUNT_MESSAGES.invalid).toEqual({ title: 'Invalid Amount', description: 'Please enter a valid positive amount.' });
  });

  it('enforces the $0.50 minimum', () => {
    expect(checkAmount('0.3', true)).toEqual({ ok: false, problem: 'belowMinimum' });
    expect(checkAmount('0.49', true)).toEqual({ ok: false, problem: 'belowMinimum' });
    expect(AMOUNT_MESSAGES.belowMinimum.description).toBe('Minimum amount to add is $0.50');
    expect(checkAmount('0.5', true)).toEqual({ ok: true, amount: 0.5, cents: 50 });
  });

  it('converts to cents', () => {
    expect(checkAmount('25', true)).toEqual({ ok: true, amount: 25, cents: 2500 });
    expect(checkAmount('10.255', true)).toMatchObject({ ok: true, cents: 1026 });
  });
});
