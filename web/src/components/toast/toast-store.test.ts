import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addToast, dismissToast, getToasts, removeToast, TOAST_LIMIT, TOAST_REMOVE_DELAY } from './toast-store';

beforeEach(() => {
  vi.useFakeTimers();
  removeToast();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('toast store', () => {
  it(`keeps at most ${TOAST_LIMIT} toasts, newest first`, () => {
    for (const n of [1, 2, 3, 4]) addToast({ title: `T${n}` });
    expect(getToasts().map((t) => t.title)).toEqual(['T4', 'T3', 'T2']);
  });

  it('closes a toast after the default 5000 ms and removes it after the delay', () => {
    addToast({ title: 'Hello', variant: 'destructive' });
    expect(getToasts()[0]).toMatchObject({ open: true, variant: 'destructive', duration: 5000 });
    vi.advanceTimersByTime(4999);
    expect(getToasts()[0]!.open).toBe(true);
    vi.advanceTimersByTime(1);
    expect(getToasts()[0]!.open).toBe(false);
    vi.advanceTimersByTime(TOAST_REMOVE_DELAY);
    expect(getToasts()).toEqual([]);
  });

  it('dismisses on demand', () => {
    const id = addToast({ title: 'Bye' });
    dismissToast(id);
    expect(getToasts()[0]!.open).toBe(false);
  });

  it('keeps the request id of the error a toast reports, or the one given', () => {
    addToast({ title: 'Plain' });
    addToast({ title: 'Failed', error: Object.assign(new Error('boom'), { requestId: 'req-9' }) });
    addToast({ title: 'Given', requestId: ' req-7 ', error: new Error('no id') });
    expect(getToasts().map((t) => [t.title, t.requestId])).toEqual([
      ['Given', 'req-7'],
      ['Failed', 'req-9'],
      ['Plain', undefined],
    ]);
  });
});
