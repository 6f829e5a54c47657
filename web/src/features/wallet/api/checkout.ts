import { getIdToken, NOT_LOGGED_IN_MESSAGE, requestIdOf } from '@/lib/api-client';
import { PAYMENT_PROVIDER_NAME, WALLET_CURRENCY } from '../lib/constants';
import { redirectTo } from '../lib/redirect';

export const CHECKOUT_PATH = '/api/stripe/create-checkout-session';

/** Spec §8 "Wallet checkout errors" (shown in a destructive toast titled 'Payment Failed'). */
export const CHECKOUT_ERRORS = {
  title: 'Payment Failed',
  authAfterRetry: 'Authentication failed. Please log in again.',
  noKeyAfterRetry: 'Invalid response from server after retry',
  badRequest: 'Invalid request. Please check the amount and try again.',
  rateLimited: 'Too many requests. Please wait a moment and try again.',
  otherStatus: (body: string) => `Failed to create checkout session: ${body}`,
  noPublishableKey: 'No publishable key returned from server',
  stripeLoad: `Failed to load ${PAYMENT_PROVIDER_NAME}`,
  noDestination: 'Neither URL nor session ID was provided by the server',
  noUser: 'No authenticated user found',
  noToken: 'Failed to obtain valid authentication token',
  /** Not in the spec: the loaded Stripe.js has no session-id redirect (removed in newer releases). */
  noSessionRedirect: `${PAYMENT_PROVIDER_NAME} cannot redirect to checkout with a session ID`,
  unexpected: 'An unexpected error occurred',
} as const;

export class CheckoutError extends Error {
  override name = 'CheckoutError';
  /** The failed response's `x-request-id` (lib/api-error), when the failure was a response that had one. */
  readonly requestId?: string;

  constructor(message: string, requestId?: string) {
    super(message);
    if (requestId) this.requestId = requestId;
  }
}

export interface CheckoutResponse {
  sessionId?: string | null;
  url?: string | null;
  publishableKey?: string | null;
}

/** The part of a Stripe.js instance the flow needs (redirectToCheckout is absent from newer typings). */
export interface StripeRedirector {
  redirectToCheckout?: (options: { sessionId: string }) => Promise<{ error?: { message?: string } } | undefined | void>;
}

export interface CheckoutDeps {
  /** A freshly minted ID token (force refresh); rejects when there is no user or no token. */
  getToken: () => Promise<string>;
  fetch: typeof fetch;
  /** Leaves the app for the hosted checkout page. */
  redirect: (url: string) => void;
  /** Loads Stripe.js; may resolve null or reject (it rejects offline). */
  loadStripe: (publishableKey: string) => Promise<StripeRedirector | null>;
  now: () => Date;
}

export interface CheckoutUser {
  uid: string;
  email: string | null;
}

async function defaultLoadStripe(publishableKey: string): Promise<StripeRedirector | null> {
  // The pure entry point injects the Stripe.js script only when called, not on import.
  const { loadStripe } = await import('@stripe/stripe-js/pure');
  return (await loadStripe(publishableKey)) as unknown as StripeRedirector | null;
}

export const defaultCheckoutDeps: CheckoutDeps = {
  getToken: () => getIdToken(),
  fetch: (...args) => fetch(...args),
  redirect: (url) => redirectTo(url),
  loadStripe: defaultLoadStripe,
  now: () => new Date(),
};

async function freshToken(deps: CheckoutDeps): Promise<string> {
  let token: string;
  try {
    token = await deps.getToken();
  } catch (error) {
    if (error instanceof Error && error.message === NOT_LOGGED_IN_MESSAGE) {
      throw new CheckoutError(CHECKOUT_ERRORS.noUser);
    }
    throw new CheckoutError(CHECKOUT_ERRORS.noToken);
  }
  if (!token) throw new CheckoutError(CHECKOUT_ERRORS.noToken);
  return token;
}

async function readBody(response: Response): Promise<CheckoutResponse> {
  try {
    const body: unknown = await response.json();
    return body && typeof body === 'object' ? (body as CheckoutResponse) : {};
  } catch {
    return {};
  }
}

async function statusError(response: Response): Promise<CheckoutError> {
  const requestId = requestIdOf(response);
  if (response.status === 400) return new CheckoutError(CHECKOUT_ERRORS.badRequest, requestId);
  if (response.status === 429) return new CheckoutError(CHECKOUT_ERRORS.rateLimited, requestId);
  const text = await response.text().catch(() => '');
  return new CheckoutError(
    CHECKOUT_ERRORS.otherStatus(text || response.statusText || String(response.status)),
    requestId,
  );
}

async function goToCheckout(data: CheckoutResponse, deps: CheckoutDeps): Promise<void> {
  const publishableKey = data.publishableKey as string;
  if (data.url) {
    // The hosted page's address needs no Stripe.js (which cannot load offline).
    deps.redirect(data.url);
    return;
  }
  if (!data.sessionId) throw new CheckoutError(CHECKOUT_ERRORS.noDestination);
  let stripe: StripeRedirector | null;
  try {
    stripe = await deps.loadStripe(publishableKey);
  } catch (error) {
    console.error('Error loading Stripe.js:', error);
    stripe = null;
  }
  if (!stripe) throw new CheckoutError(CHECKOUT_ERRORS.stripeLoad);
  if (typeof stripe.redirectToCheckout !== 'function') throw new CheckoutError(CHECKOUT_ERRORS.noSessionRedirect);
  const result = await stripe.redirectToCheckout({ sessionId: data.sessionId });
  if (result && result.error) {
    throw new CheckoutError(result.error.message || CHECKOUT_ERRORS.unexpected);
  }
}

/**
 * Creates a Checkout Session for `cents` and leaves for the provider's checkout page
 * (spec §7 and §8): a 401 gets a fresh token and one retry; the response must carry a
 * publishable key; then the hosted `url`, else Stripe.js with the `sessionId`.
 * Every failure is a CheckoutError whose message is the spec's text.
 */
export async function startCheckout(
  cents: number,
  user: CheckoutUser | null,
  deps: CheckoutDeps = defaultCheckoutDeps,
): Promise<void> {
  if (!user) throw new CheckoutError(CHECKOUT_ERRORS.noUser);
  const body = JSON.stringify({
    amount: cents,
    currency: WALLET_CURRENCY,
    metadata: { userId: user.uid, email: user.email ?? '', timestamp: deps.now().toISOString() },
  });
  const post = (token: string) =>
    deps.fetch(CHECKOUT_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      credentials: 'include',
      body,
    });

  const response = await post(await freshToken(deps));
  if (response.status === 401) {
    const retry = await post(await freshToken(deps));
    if (retry.status === 401) throw new CheckoutError(CHECKOUT_ERRORS.authAfterRetry, requestIdOf(retry));
    if (!retry.ok) throw await statusError(retry);
    const data = await readBody(retry);
    if (!data.publishableKey) throw new CheckoutError(CHECKOUT_ERRORS.noKeyAfterRetry);
    return goToCheckout(data, deps);
  }
  if (!response.ok) throw await statusError(response);
  const data = await readBody(response);
  if (!data.publishableKey) throw new CheckoutError(CHECKOUT_ERRORS.noPublishableKey);
  return goToCheckout(data, deps);
}

/** The toast text for any failure of the flow. */
export function checkoutErrorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return CHECKOUT_ERRORS.unexpected;
}
