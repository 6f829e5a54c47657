-- +goose Up
-- Creator payouts through Stripe Connect Express (issue 28).
--
-- The account kinds ('user_earnings_available', 'user_payouts_in_transit'),
-- the system account 'system:creator_payouts' and the transfer types
-- ('payout', 'payout_paid', 'payout_return') come from 00007_earnings.sql.
--
-- A payout moves money earnings_available:<uid> → payouts_in_transit:<uid>
-- ('payout') in the transaction that inserts its row, before the Stripe
-- Transfer is created (Idempotency-Key 'payout-<id>'). transfer.created
-- settles it payouts_in_transit → system:creator_payouts ('payout_paid');
-- a Transfer Stripe definitively refused (a 4xx other than 429/409),
-- transfer.failed or a reversal
-- (transfer.reversed) gives the money back to earnings_available
-- ('payout_return', from payouts_in_transit or from system:creator_payouts).
-- Every change happens under the creator's wallet lock and the payout row's
-- lock, so each step moves money once whatever the order of the events.

-- One connected (Express) account per user.
CREATE TABLE IF NOT EXISTS connect_accounts (
    uid                 text        PRIMARY KEY,
    stripe_account_id   text        UNIQUE,                 -- acct_... (NULL until Stripe answered)
    status              text        NOT NULL DEFAULT 'none'
                        CHECK (status IN ('none', 'onboarding', 'enabled', 'restricted')),
    reason              text        NOT NULL DEFAULT '',    -- why not enabled (requirements.disabled_reason / currently_due)
    payouts_enabled     boolean     NOT NULL DEFAULT false,
    -- created (Unix seconds) of the last account.updated applied: older events are ignored.
    last_event_created  bigint      NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

-- One row per withdrawal.
--   in_transit  money in payouts_in_transit:<uid>, the Transfer created (stripe_transfer_id) or
--               not confirmed yet (NULL: retried by the payout reconciler, never refunded)
--   paid        transfer.created seen: money in system:creator_payouts
--   failed      Stripe refused the Transfer (definitively): money returned to earnings_available
--   reversed    transfer.reversed: money returned to earnings_available
CREATE TABLE IF NOT EXISTS payouts (
    id                  uuid        PRIMARY KEY,
    uid                 text        NOT NULL,
    stripe_account_id   text        NOT NULL,
    amount_micros       bigint      NOT NULL CHECK (amount_micros > 0),
    amount_cents        bigint      NOT NULL CHECK (amount_cents > 0),
    status              text        NOT NULL CHECK (status IN ('in_transit', 'paid', 'failed', 'reversed')),
    stripe_transfer_id  text        UNIQUE,                 -- tr_... (once known)
    idempotency_key     text        NOT NULL UNIQUE,        -- the Transfer's Idempotency-Key
    -- Money given back so far (payout_return transfers); = amount when failed or reversed.
    returned_micros     bigint      NOT NULL DEFAULT 0,
    failure_message     text        NOT NULL DEFAULT '',
    -- Transfer calls (payouts_service.go): while in_transit without a stripe_transfer_id the
    -- Transfer was not confirmed (never sent: a crash after the commit; or an unknown outcome:
    -- network error, timeout, 5xx, 429, 409): the payout reconciler calls again with the same
    -- Idempotency-Key once next_attempt_at is due (claiming sets it: a lease), with back-off.
    attempts            integer     NOT NULL DEFAULT 0,
    last_error          text        NOT NULL DEFAULT '',
    next_attempt_at     timestamptz NOT NULL DEFAULT now(),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT payouts_amount_cents CHECK (amount_micros = amount_cents * 10000),
    CONSTRAINT payouts_returned CHECK (returned_micros >= 0 AND returned_micros <= amount_micros),
    CONSTRAINT payouts_returned_final CHECK (status NOT IN ('failed', 'reversed') OR returned_micros = amount_micros)
);

-- At most one payout in flight per user.
CREATE UNIQUE INDEX IF NOT EXISTS payouts_one_in_flight ON payouts (uid) WHERE status = 'in_transit';
CREATE INDEX IF NOT EXISTS payouts_uid_idx ON payouts (uid, created_at DESC);
-- The payout reconciler's queue: in transit, Transfer not confirmed.
CREATE INDEX IF NOT EXISTS payouts_unconfirmed_idx ON payouts (next_attempt_at)
    WHERE status = 'in_transit' AND stripe_transfer_id IS NULL;

-- +goose Down
DROP TABLE IF EXISTS payouts;
DROP TABLE IF EXISTS connect_accounts;
