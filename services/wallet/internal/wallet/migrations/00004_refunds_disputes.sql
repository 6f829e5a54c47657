-- +goose Up
-- Refunds and disputes of Stripe top-ups (issue 16).
--
-- Every credited Stripe payment is recorded with its PaymentIntent (and
-- charge, once known), so that charge.refunded and charge.dispute.* events
-- find the deposit they take back. The cumulative amounts reversed are kept
-- on the payment row, updated under the owner's wallet lock and that row's
-- lock, so each refund step and each dispute moves money exactly once,
-- whatever the delivery order.
ALTER TABLE checkout_sessions ADD COLUMN IF NOT EXISTS payment_intent_id text;

CREATE TABLE IF NOT EXISTS stripe_payments (
    payment_intent_id    text        PRIMARY KEY,            -- pi_...
    charge_id            text        UNIQUE,                 -- ch_... (learnt from the charge's events when absent)
    uid                  text        NOT NULL,
    amount_cents         bigint      NOT NULL CHECK (amount_cents > 0),
    deposit_transfer_id  uuid        NOT NULL UNIQUE REFERENCES transfers (id),
    checkout_session_id  text        UNIQUE REFERENCES checkout_sessions (id),
    recharge_id          uuid        UNIQUE,
    -- Stripe's amount_refunded as far as applied (cumulative).
    refunded_cents       bigint      NOT NULL DEFAULT 0,
    -- Withdrawn by open or lost disputes (reinstated amounts are subtracted again).
    disputed_cents       bigint      NOT NULL DEFAULT 0,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    -- Never more is taken back than was paid.
    CONSTRAINT stripe_payments_reversed_range CHECK (refunded_cents >= 0 AND disputed_cents >= 0
        AND refunded_cents + disputed_cents <= amount_cents),
    CONSTRAINT stripe_payments_source CHECK ((checkout_session_id IS NULL) <> (recharge_id IS NULL))
);

CREATE INDEX IF NOT EXISTS stripe_payments_uid_idx ON stripe_payments (uid);

-- One row per Stripe dispute. withdrawn_cents > 0 once its funds left the
-- wallet; reinstated once a win (or funds_reinstated) was seen, with
-- reinstated_cents the money given back. A dispute is withdrawn at most once
-- and reinstated at most once, and never reinstated more than withdrawn.
CREATE TABLE IF NOT EXISTS stripe_disputes (
    id                 text        PRIMARY KEY,              -- dp_...
    payment_intent_id  text        NOT NULL REFERENCES stripe_payments (payment_intent_id),
    uid                text        NOT NULL,
    amount_cents       bigint      NOT NULL CHECK (amount_cents > 0),
    status             text        NOT NULL,                 -- Stripe's status as last applied
    closed             boolean     NOT NULL DEFAULT false,
    withdrawn_cents    bigint      NOT NULL DEFAULT 0 CHECK (withdrawn_cents >= 0),
    reinstated         boolean     NOT NULL DEFAULT false,
    reinstated_cents   bigint      NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT stripe_disputes_reinstated CHECK (reinstated_cents = 0 OR (reinstated AND reinstated_cents = withdrawn_cents))
);

-- Refund and dispute events that arrived before the deposit they concern was
-- credited (a delayed checkout webhook): kept and applied in the
-- transaction that records the payment, so no event is lost to the order of
-- delivery.
CREATE TABLE IF NOT EXISTS stripe_unmatched_events (
    event_id           text        PRIMARY KEY,
    type               text        NOT NULL,
    payment_intent_id  text,
    charge_id          text,
    event              jsonb       NOT NULL,                 -- the parsed wallet.WebhookEvent
    received_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS stripe_unmatched_pi_idx ON stripe_unmatched_events (payment_intent_id);
CREATE INDEX IF NOT EXISTS stripe_unmatched_charge_idx ON stripe_unmatched_events (charge_id);

-- +goose Down
DROP TABLE IF EXISTS stripe_unmatched_events;
DROP TABLE IF EXISTS stripe_disputes;
DROP TABLE IF EXISTS stripe_payments;
ALTER TABLE checkout_sessions DROP COLUMN IF EXISTS payment_intent_id;
