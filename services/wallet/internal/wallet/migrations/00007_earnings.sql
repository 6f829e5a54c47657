-- +goose Up
-- Creator earnings (issue 28): consumers of a listed agent pay cost + fee +
-- markup (+ greeting on a conversation's first answer); the creator earns the
-- markup and the greeting.
--
-- A consumer's capture is ONE transaction: the whole total is an expense
-- holds:<consumer> → system:platform_revenue (the consumer's history shows
-- what they paid), then an 'earning' transfer system:platform_revenue →
-- earnings_pending:<creator> moves markup + greeting on. Pending earnings
-- mature after EARNINGS_HOLD ('earning_release' pending → available); the
-- creator moves available earnings to their wallet ('earning_transfer') or
-- withdraws them ('payout' available → payouts_in_transit, then 'payout_paid'
-- in transit → system:creator_payouts, or 'payout_return' back to available).
--
-- Account ids: 'earnings_pending:<uid>', 'earnings_available:<uid>',
-- 'payouts_in_transit:<uid>'; each is never negative (CHECK), owned by its
-- uid (user_account_owner) and unique per (uid, kind) (accounts_uid_kind_key).
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
    CHECK (kind IN ('user_wallet', 'user_holds', 'user_debt', 'user_earnings_pending', 'user_earnings_available',
        'user_payouts_in_transit', 'system'));
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_earnings_non_negative;
ALTER TABLE accounts ADD CONSTRAINT user_earnings_non_negative
    CHECK (kind NOT IN ('user_earnings_pending', 'user_earnings_available', 'user_payouts_in_transit') OR balance_micros >= 0);

INSERT INTO accounts (id, kind) VALUES
    ('system:creator_payouts', 'system')   -- money sent to creators' connected (Stripe) accounts
ON CONFLICT (id) DO NOTHING;

ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_type_check
    CHECK (type IN ('deposit', 'income', 'expense', 'hold', 'hold_release', 'refund', 'dispute', 'debt', 'repayment',
        'earning', 'earning_release', 'earning_transfer', 'payout', 'payout_paid', 'payout_return'));
-- The history shows earning_transfer (as a deposit "Transfer from earnings");
-- earnings themselves appear as per-day lines (earnings_days below).
DROP INDEX IF EXISTS transfers_uid_seq_visible_idx;
CREATE INDEX IF NOT EXISTS transfers_uid_seq_visible_idx ON transfers (uid, seq DESC)
    WHERE type IN ('deposit', 'income', 'expense', 'refund', 'dispute', 'repayment', 'earning_transfer');

-- One row per credited answer (the 'earning' transfer). released turns true,
-- with release_transfer_id, when the row's money moved pending → available
-- (one earning_release transfer may release many rows of one creator).
CREATE TABLE IF NOT EXISTS earnings (
    transfer_id          uuid        PRIMARY KEY REFERENCES transfers (id),
    creator_uid          text        NOT NULL,
    agent_id             text        NOT NULL DEFAULT '',
    agent_name           text        NOT NULL DEFAULT '',
    consumer_uid         text        NOT NULL,
    message_id           text        NOT NULL DEFAULT '',
    markup_micros        bigint      NOT NULL CHECK (markup_micros >= 0),
    greeting_micros      bigint      NOT NULL CHECK (greeting_micros >= 0),
    amount_micros        bigint      NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    available_at         timestamptz NOT NULL,
    released             boolean     NOT NULL DEFAULT false,
    release_transfer_id  uuid        REFERENCES transfers (id),
    CONSTRAINT earnings_amount CHECK (amount_micros > 0 AND amount_micros = markup_micros + greeting_micros),
    CONSTRAINT earnings_released CHECK (released = (release_transfer_id IS NOT NULL)),
    CONSTRAINT earnings_not_self CHECK (creator_uid <> consumer_uid)
);
-- Maturation's scans (per creator and across creators: only unreleased rows).
CREATE INDEX IF NOT EXISTS earnings_due_idx ON earnings (available_at) WHERE NOT released;
CREATE INDEX IF NOT EXISTS earnings_creator_due_idx ON earnings (creator_uid, available_at) WHERE NOT released;
-- Per-agent figures and the CSV export.
CREATE INDEX IF NOT EXISTS earnings_creator_agent_idx ON earnings (creator_uid, agent_id, created_at);
CREATE INDEX IF NOT EXISTS earnings_creator_created_idx ON earnings (creator_uid, created_at DESC);

-- The creator's history line per agent per UTC day ("Earnings · Math Tutor ·
-- Nov 26", income, provider platform). The row is created by the first
-- earning of the day and grows with the day's later earnings (under the
-- creator's earnings_pending row lock, like every earning). seq is drawn from
-- the transfers' sequence when the row is created, so the line takes its
-- place among the creator's transfers and the history's snapshot paging
-- (seq <= snapshot) covers it.
CREATE TABLE IF NOT EXISTS earnings_days (
    creator_uid    text        NOT NULL,
    agent_id       text        NOT NULL,
    day            date        NOT NULL,   -- UTC
    id             uuid        NOT NULL UNIQUE,
    seq            bigint      NOT NULL UNIQUE,
    agent_name     text        NOT NULL DEFAULT '',
    amount_micros  bigint      NOT NULL CHECK (amount_micros > 0),
    answers        bigint      NOT NULL CHECK (answers > 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (creator_uid, agent_id, day)
);
CREATE INDEX IF NOT EXISTS earnings_days_creator_seq_idx ON earnings_days (creator_uid, seq DESC);
CREATE INDEX IF NOT EXISTS earnings_days_creator_day_idx ON earnings_days (creator_uid, day);

-- +goose Down
DROP TABLE IF EXISTS earnings_days;
DROP TABLE IF EXISTS earnings;
DROP INDEX IF EXISTS transfers_uid_seq_visible_idx;
CREATE INDEX IF NOT EXISTS transfers_uid_seq_visible_idx ON transfers (uid, seq DESC)
    WHERE type IN ('deposit', 'income', 'expense', 'refund', 'dispute', 'repayment');
ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_type_check
    CHECK (type IN ('deposit', 'income', 'expense', 'hold', 'hold_release', 'refund', 'dispute', 'debt', 'repayment'));
DELETE FROM accounts WHERE id = 'system:creator_payouts' AND balance_micros = 0;
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_earnings_non_negative;
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
    CHECK (kind IN ('user_wallet', 'user_holds', 'user_debt', 'system'));
