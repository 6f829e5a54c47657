/**
 * Wallet helpers for the end-to-end suite: the signed-in user's uid and ID token straight from the
 * Firebase Auth emulator, Checkout Sessions created through the gateway and paid on the dev Stripe
 * simulator, and ledger entries (income / expense) through the wallet's internal gRPC API.
 */
import { expect, type APIRequestContext } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { connect, constants, type SecureClientSessionOptions } from 'node:http2';
import { resolve as resolvePath } from 'node:path';

const AUTH_EMULATOR = process.env.E2E_AUTH_EMULATOR_URL ?? 'http://127.0.0.1:9099';
const API_KEY = process.env.E2E_FIREBASE_API_KEY ?? 'demo-api-key';
export const STRIPE_SIM_URL = process.env.E2E_STRIPE_SIM_URL ?? 'http://127.0.0.1:8110';
const WALLET_GRPC_ADDR = new URL(process.env.E2E_WALLET_GRPC_URL ?? 'http://127.0.0.1:9104').host;

/**
 * Internal gRPC is mutual TLS on the local stack (docs/reliability.md, "Internal gRPC: mutual TLS and
 * per-method authorization"): the suite calls the wallet as the development-only "devtools" identity,
 * with the certificates `make dev` generates in .data/certs (or E2E_GRPC_TLS_DIR). Without them it
 * dials plaintext (a stack started with APP_ENV=development and no certificates).
 */
function grpcTLS(): SecureClientSessionOptions | undefined {
  const dirs = process.env.E2E_GRPC_TLS_DIR
    ? [process.env.E2E_GRPC_TLS_DIR]
    : [resolvePath(process.cwd(), '.data/certs'), resolvePath(process.cwd(), '../.data/certs')];
  const dir = dirs.find((d) => existsSync(resolvePath(d, 'devtools.crt')));
  if (!dir) return undefined;
  return {
    ca: readFileSync(resolvePath(dir, 'ca.crt')),
    cert: readFileSync(resolvePath(dir, 'devtools.crt')),
    key: readFileSync(resolvePath(dir, 'devtools.key')),
  };
}

export interface Identity {
  uid: string;
  idToken: string;
}

/** Signs in on the Auth emulator's REST API: the uid and an ID token the services accept. */
export async function emulatorSignIn(request: APIRequestContext, email: string, password: string): Promise<Identity> {
  const res = await request.post(
    `${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=${API_KEY}`,
    { data: { email, password, returnSecureToken: true } },
  );
  expect(res.ok(), await res.text()).toBeTruthy();
  const body = (await res.json()) as { localId: string; idToken: string };
  return { uid: body.localId, idToken: body.idToken };
}

export interface CheckoutSession {
  sessionId: string;
  url: string;
  publishableKey: string;
}

/** POST /api/stripe/create-checkout-session as the web app sends it (amount in cents). */
export async function createCheckoutSession(
  request: APIRequestContext,
  who: Identity & { email: string },
  cents: number,
): Promise<CheckoutSession> {
  const res = await request.post('/api/stripe/create-checkout-session', {
    headers: { Authorization: `Bearer ${who.idToken}` },
    data: {
      amount: cents,
      currency: 'usd',
      metadata: { userId: who.uid, email: who.email, timestamp: new Date().toISOString() },
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as CheckoutSession;
}

/** Presses Pay on the simulator's hosted page: it delivers the signed webhook, then redirects. */
export async function payOnSimulator(request: APIRequestContext, sessionId: string): Promise<void> {
  const res = await request.post(`${STRIPE_SIM_URL}/pay/${sessionId}/pay`, { maxRedirects: 0 });
  expect(res.status()).toBe(303);
}

/** A whole top-up without the browser: create the session, pay it. */
export async function topUp(request: APIRequestContext, who: Identity & { email: string }, cents: number) {
  const session = await createCheckoutSession(request, who, cents);
  await payOnSimulator(request, session.sessionId);
  return session;
}

/** GET /api/user/balance in dollars. */
export async function getBalance(request: APIRequestContext, who: Identity): Promise<number> {
  const res = await request.get('/api/user/balance', { headers: { Authorization: `Bearer ${who.idToken}` } });
  expect(res.ok()).toBeTruthy();
  return ((await res.json()) as { data: { balance: number } }).data.balance;
}

// --- a minimal gRPC client (unary, HTTP/2 over mutual TLS or cleartext, hand-encoded protobuf) --------

function varint(value: bigint | number): Buffer {
  let v = BigInt(value);
  const bytes: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

function stringField(field: number, value: string): Buffer {
  const data = Buffer.from(value, 'utf8');
  return Buffer.concat([varint((field << 3) | 2), varint(data.length), data]);
}

function int64Field(field: number, value: bigint | number): Buffer {
  return Buffer.concat([varint(field << 3), varint(value)]);
}

/** agentic.wallet.v1.CreditRequest / ChargeRequest: uid=1, amount_micros=2, idempotency_key=3, description=4. */
function transferRequest(uid: string, amountMicros: number, key: string, description: string): Buffer {
  return Buffer.concat([
    stringField(1, uid),
    int64Field(2, amountMicros),
    stringField(3, key),
    stringField(4, description),
  ]);
}

function unary(method: string, message: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const tls = grpcTLS();
    const client = tls ? connect(`https://${WALLET_GRPC_ADDR}`, tls) : connect(`http://${WALLET_GRPC_ADDR}`);
    client.on('error', reject);
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt8(0, 0);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    const req = client.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: `/agentic.wallet.v1.WalletService/${method}`,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let status: string | undefined;
    let grpcMessage = '';
    const read = (headers: Record<string, unknown>) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
      if (headers['grpc-message'] !== undefined) grpcMessage = decodeURIComponent(String(headers['grpc-message']));
    };
    req.on('response', read);
    req.on('trailers', read);
    req.on('data', () => {});
    req.on('end', () => {
      client.close();
      if (status === '0') resolve();
      else reject(new Error(`${method} failed: grpc-status ${status ?? '?'} ${grpcMessage}`));
    });
    req.on('error', (error) => {
      client.close();
      reject(error);
    });
    req.end(frame);
  });
}

let keySeq = 0;
const newKey = (prefix: string) => `e2e-${prefix}-${Date.now().toString(36)}-${(keySeq += 1)}-${Math.random().toString(36).slice(2, 8)}`;

/** An "income" transfer into the user's wallet (internal gRPC Credit). */
export function creditWallet(uid: string, dollars: number, description: string): Promise<void> {
  return unary('Credit', transferRequest(uid, Math.round(dollars * 1_000_000), newKey('credit'), description));
}

/** An "expense" transfer out of the user's wallet (internal gRPC Charge; needs the funds). */
export function chargeWallet(uid: string, dollars: number, description: string): Promise<void> {
  return unary('Charge', transferRequest(uid, Math.round(dollars * 1_000_000), newKey('charge'), description));
}
