-- +goose Up
-- Auto-recharge (issue 16): a card saved with a Checkout Session in setup
-- mode, and off-session PaymentIntents when a debit takes the available
-- balance below the user's threshold.

-- Setup-mode Checkout Sessions the wallet created (the webhook trusts the
-- recorded user, never the session's metadata).
CREATE TABLE IF NOT EXISTS setup_sessions (
    id          text        PRIMARY KEY,                -- cs_...
    uid         text        NOT NULL,
    status      text        NOT NULL CHECK (status IN ('open', 'complete')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per recharge. It is inserted in the ledger transaction of the
-- debit that crossed the threshold; the PaymentIntent is created after the
-- commit (Idempotency-Key 'recharge-<id>', so a retry after a crash never
-- charges twice) and the money is credited by payment_intent.succeeded
-- (deposit key 'stripe:pi:<pi>') or reconciliation.
--   pending     created, PaymentIntent not (known to be) created yet
--   processing  PaymentIntent created, waiting for its webhook
--   succeeded   credited (transfer_id)
--   failed      declined (counted towards the three failures in a row)
--   canceled    auto-recharge was turned off before the payment was made
CREATE TABLE IF NOT EXISTS recharges (
    id                 uuid        PRIMARY KEY,
    uid                text        NOT NULL,
    amount_cents       bigint      NOT NULL CHECK (amount_cents >= 50),
    status             text        NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded', 'failed', 'canceled')),
    payment_intent_id  text        UNIQUE,
    transfer_id        uuid        UNIQUE REFERENCES transfers (id),
    failure_message    text,
    attempts           integer     NOT NULL DEFAULT 0,
    -- A worker claims a pending recharge by moving this forward (a lease).
    next_attempt_at    timestamptz NOT NULL DEFAULT now(),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT recharges_credited CHECK ((status = 'succeeded') = (transfer_id IS NOT NULL))
);

-- At most one recharge in flight per user, whatever the concurrency of the
-- debits that cross the threshold.
CREATE UNIQUE INDEX IF NOT EXISTS recharges_one_in_flight ON recharges (uid) WHERE status IN ('pending', 'processing');
CREATE INDEX IF NOT EXISTS recharges_pending_idx ON recharges (next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS recharges_uid_idx ON recharges (uid, created_at DESC);

ALTER TABLE stripe_payments DROP CONSTRAINT IF EXISTS stripe_payments_recharge_fk;
ALTER TABLE stripe_payments ADD CONSTRAINT stripe_payments_recharge_fk FOREIGN KEY (recharge_id) REFERENCES recharges (id);

-- +goose Down
ALTER TABLE stripe_payments DROP CONSTRAINT IF EXISTS stripe_payments_recharge_fk;
DROP TABLE IF EXISTS recharges;
DROP TABLE IF EXISTS setup_sessions;
