import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi, json, text } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import {
  BillingApiError,
  downloadTransactionsCsv,
  readBalanceDetails,
  readBillingSettings,
  saveBillingSettings,
  startCardSetup,
  transactionsCsvUrl,
} from './billing';

const identity = fakeIdentity();
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));
const redirectTo = vi.fn();
vi.mock('../lib/redirect', () => ({ redirectTo: (url: string) => redirectTo(url) }));
const saveBlob = vi.fn();
vi.mock('../lib/download', () => ({ saveBlob: (blob: Blob, name: string) => saveBlob(blob, name) }));

let api: FakeApi;
beforeEach(() => {
  redirectTo.mockReset();
  saveBlob.mockReset();
  api = fakeApi();
});

describe('balance reader', () => {
  it('reads the whole billing balance', () => {
    const data = {
      balance: 20,
      held: 1.5,
      available: 18.5,
      debt: 0,
      monthUsage: 8.25,
      monthlyLimit: 10,
      lowBalanceThreshold: 5,
      lowBalance: false,
      limitWarning: 'limit_80',
      autoRecharge: {
        enabled: true,
        threshold: 5,
        amount: 20,
        hasCard: true,
        cardLabel: 'Visa •••• 4242',
        disabledReason: null,
        lastFailure: null,
        inFlight: false,
      },
    };
    expect(readBalanceDetails({ success: true, data })).toEqual(data);
  });

  it('tolerates an older wallet that sends only the balance', () => {
    expect(readBalanceDetails({ success: true, data: { balance: 12.5 } })).toEqual({
      balance: 12.5,
      held: 0,
      available: 12.5,
      debt: 0,
      monthUsage: null,
      monthlyLimit: null,
      lowBalanceThreshold: null,
      lowBalance: false,
      limitWarning: null,
      autoRecharge: null,
    });
    expect(readBalanceDetails({ data: { balance: '3', limitWarning: 'odd', debt: -1 } })).toMatchObject({
      balance: 3,
      limitWarning: null,
      debt: 0,
    });
    expect(() => readBalanceDetails({ data: {} })).toThrow('Invalid balance response');
    expect(() => readBalanceDetails(undefined)).toThrow('Invalid balance response');
  });

  it('reads billing settings', () => {
    expect(readBillingSettings({ success: true, data: { monthlyLimit: 50, lowBalanceThreshold: null, autoRecharge: { enabled: true, threshold: 5, amount: 20 } } })).toEqual({
      monthlyLimit: 50,
      lowBalanceThreshold: null,
      autoRecharge: { enabled: true, threshold: 5, amount: 20 },
    });
    expect(readBillingSettings({ data: {} })).toEqual({
      monthlyLimit: null,
      lowBalanceThreshold: null,
      autoRecharge: { enabled: false, threshold: null, amount: null },
    });
    expect(() => readBillingSettings({ error: 'x' })).toThrow('Invalid billing settings response');
  });
});

describe('billing calls', () => {
  const settings = { monthlyLimit: 25, lowBalanceThreshold: null, autoRecharge: { enabled: false, threshold: null, amount: null } };

  it('PUTs the settings with the Bearer token', async () => {
    api.use({ 'PUT /api/user/billing-settings': { success: true, data: settings } });
    await expect(saveBillingSettings(settings)).resolves.toEqual(settings);
    const [call] = api.calls;
    expect(call!.input).toBe('/api/user/billing-settings');
    expect(call!.init.method).toBe('PUT');
    expect(call!.body).toEqual(settings);
    expect(call!.headers.get('Authorization')).toBe('Bearer token-123');
  });

  it("turns the platform's error into its code and message", async () => {
    api.use({ 'PUT /api/user/billing-settings': () => json({ error: 'invalid_settings', message: 'monthlyLimit must be at least 0.50' }, 400) });
    await expect(saveBillingSettings(settings)).rejects.toEqual(
      new BillingApiError(400, 'invalid_settings', 'monthlyLimit must be at least 0.50'),
    );
    api.use({ 'PUT /api/user/billing-settings': () => text('oops', 502) });
    await expect(saveBillingSettings(settings)).rejects.toThrow('Failed to save spend controls.');
  });

  it('starts the card setup and follows its url', async () => {
    api.use({ 'POST /api/stripe/setup-session': { success: true, data: { url: 'http://127.0.0.1:8110/setup/cs_1', sessionId: 'cs_1' } } });
    await startCardSetup();
    expect(api.calls[0]!.input).toBe('/api/stripe/setup-session');
    expect(api.calls[0]!.init.method).toBe('POST');
    expect(redirectTo).toHaveBeenCalledWith('http://127.0.0.1:8110/setup/cs_1');
    api.use({ 'POST /api/stripe/setup-session': { success: true, data: {} } });
    await expect(startCardSetup()).rejects.toThrow('No checkout address was returned.');
  });
});

describe('CSV export', () => {
  it('builds the URL from the current filter', () => {
    expect(transactionsCsvUrl('', 'all')).toBe('/api/user/transactions.csv');
    expect(transactionsCsvUrl('calculus tutor', 'expense')).toBe('/api/user/transactions.csv?search=calculus+tutor&type=expense');
    expect(transactionsCsvUrl('', 'balance_update')).toBe('/api/user/transactions.csv?type=balance_update');
  });

  it('fetches with the Bearer token and saves the blob as transactions.csv', async () => {
    api.use({
      'GET /api/user/transactions.csv': () =>
        text('date,description,type,amount,provider,id\n', 200, { headers: { 'Content-Type': 'text/csv' } }),
    });
    await downloadTransactionsCsv('top-up', 'income');
    const [call] = api.calls;
    expect(call!.input).toBe('/api/user/transactions.csv?search=top-up&type=income');
    expect(call!.headers.get('Authorization')).toBe('Bearer token-123');
    expect(saveBlob).toHaveBeenCalledTimes(1);
    const [blob, name] = saveBlob.mock.calls[0]!;
    expect(name).toBe('transactions.csv');
    expect(await (blob as Blob).text()).toBe('date,description,type,amount,provider,id\n');
  });

  it('fails with the server message and saves nothing', async () => {
    api.use({ 'GET /api/user/transactions.csv': () => json({ error: 'internal', message: 'Internal server error' }, 500) });
    await expect(downloadTransactionsCsv('', 'all')).rejects.toThrow('Internal server error');
    expect(saveBlob).not.toHaveBeenCalled();
  });
});
