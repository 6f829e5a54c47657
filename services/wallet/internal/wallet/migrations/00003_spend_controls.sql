-- +goose Up
-- Spend controls and debt (issue 16).
--
-- Debt: a refund or a lost dispute of a top-up that was already spent takes
-- what the wallet has and books the rest to the user's debt account
-- 'debt:<uid>' (kind user_debt). Balance = credits - debits as everywhere, so
-- a debt account is never positive: its negated balance is what the user owes.
-- The wallet account itself can still never go below zero.
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
    CHECK (kind IN ('user_wallet', 'user_holds', 'user_debt', 'system'));
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_debt_non_positive;
ALTER TABLE accounts ADD CONSTRAINT user_debt_non_positive CHECK (kind <> 'user_debt' OR balance_micros <= 0);

-- New transfer types:
--   refund     wallet -> stripe clearing   (the part of a refunded top-up the wallet still had)
--   dispute    wallet -> stripe clearing   (the same for a dispute's withdrawal)
--   debt       debt   -> stripe clearing   (the part already spent: owed)
--   repayment  wallet -> debt              (a later credit pays the debt first)
-- refund, dispute and repayment take money out of the wallet and are shown in
-- the history; debt does not touch the wallet (it is shown as the balance's debt).
ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_type_check
    CHECK (type IN ('deposit', 'income', 'expense', 'hold', 'hold_release', 'refund', 'dispute', 'debt', 'repayment'));
DROP INDEX IF EXISTS transfers_uid_seq_visible_idx;
CREATE INDEX IF NOT EXISTS transfers_uid_seq_visible_idx ON transfers (uid, seq DESC)
    WHERE type IN ('deposit', 'income', 'expense', 'refund', 'dispute', 'repayment');

-- The user's billing settings (amounts in micro-dollars, whole cents, $0.50 ..
-- $10,000) and the auto-recharge state. Written under the user's wallet lock,
-- like every ledger posting, so a Reserve sees either the old or the new limit.
CREATE TABLE IF NOT EXISTS billing_settings (
    uid                             text        PRIMARY KEY,
    monthly_limit_micros            bigint,
    low_balance_threshold_micros    bigint,
    -- The low-balance event fires once per crossing: a debit that takes the
    -- available balance below the threshold disarms it, a credit back to the
    -- threshold (or a new threshold) re-arms it.
    low_balance_armed               boolean     NOT NULL DEFAULT true,
    auto_recharge_enabled           boolean     NOT NULL DEFAULT false,
    auto_recharge_threshold_micros  bigint,
    auto_recharge_amount_micros     bigint,
    -- The card saved with a Checkout Session in setup mode.
    stripe_customer_id              text,
    payment_method_id               text,
    card_label                      text,
    -- Declined recharges in a row; the third turns auto-recharge off.
    auto_recharge_failures          integer     NOT NULL DEFAULT 0 CHECK (auto_recharge_failures >= 0),
    auto_recharge_disabled_reason   text,
    auto_recharge_last_failure      text,
    -- No new attempt before this time after a decline (back-off).
    auto_recharge_retry_at          timestamptz,
    created_at                      timestamptz NOT NULL DEFAULT now(),
    updated_at                      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT billing_amounts_range CHECK (
        (monthly_limit_micros IS NULL OR (monthly_limit_micros BETWEEN 500000 AND 10000000000 AND monthly_limit_micros % 10000 = 0)) AND
        (low_balance_threshold_micros IS NULL OR (low_balance_threshold_micros BETWEEN 500000 AND 10000000000 AND low_balance_threshold_micros % 10000 = 0)) AND
        (auto_recharge_threshold_micros IS NULL OR (auto_recharge_threshold_micros BETWEEN 500000 AND 10000000000 AND auto_recharge_threshold_micros % 10000 = 0)) AND
        (auto_recharge_amount_micros IS NULL OR (auto_recharge_amount_micros BETWEEN 500000 AND 10000000000 AND auto_recharge_amount_micros % 10000 = 0))),
    -- Enabled auto-recharge always knows when, how much and with which card.
    CONSTRAINT auto_recharge_complete CHECK (NOT auto_recharge_enabled OR
        (auto_recharge_threshold_micros IS NOT NULL AND auto_recharge_amount_micros IS NOT NULL AND payment_method_id IS NOT NULL))
);

-- This month's usage (expenses: captured answers, charges, agent fees) per
-- user and UTC month, updated in the transaction of every expense under the
-- wallet lock, so Reserve reads it in O(1) and exactly. CheckInvariants
-- compares it with the expense transfers.
CREATE TABLE IF NOT EXISTS usage_months (
    uid     text   NOT NULL,
    month   date   NOT NULL,        -- first day of the UTC month
    micros  bigint NOT NULL CHECK (micros >= 0),
    PRIMARY KEY (uid, month)
);

-- Spend warnings already sent (one per user, month, threshold and limit value).
CREATE TABLE IF NOT EXISTS spend_warnings (
    uid           text        NOT NULL,
    month         date        NOT NULL,
    threshold     text        NOT NULL CHECK (threshold IN ('limit_80', 'limit_100')),
    limit_micros  bigint      NOT NULL,
    usage_micros  bigint      NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (uid, month, threshold, limit_micros)
);

-- +goose Down
DROP TABLE IF EXISTS spend_warnings;
DROP TABLE IF EXISTS usage_months;
DROP TABLE IF EXISTS billing_settings;
DROP INDEX IF EXISTS transfers_uid_seq_visible_idx;
CREATE INDEX IF NOT EXISTS transfers_uid_seq_visible_idx ON transfers (uid, seq DESC)
    WHERE type IN ('deposit', 'income', 'expense');
ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_type_check
    CHECK (type IN ('deposit', 'income', 'expense', 'hold', 'hold_release'));
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_debt_non_positive;
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ('user_wallet', 'user_holds', 'system'));
