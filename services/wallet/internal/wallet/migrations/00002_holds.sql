-- +goose Up
-- Holds (Reserve → Capture / Release / expiry) in the double-entry ledger.
--
-- Every user has up to two accounts: the wallet 'user:<uid>' (kind
-- user_wallet) and the hold account 'holds:<uid>' (kind user_holds, created
-- on the first Reserve). A hold is a transfer wallet → holds; a capture is an
-- expense holds → platform revenue plus a transfer of the rest holds →
-- wallet; a release or an expiry returns the whole hold holds → wallet.
--
-- So the wallet account's balance IS the available balance, and the user's
-- balance (what the API and the history show) is wallet + holds. The existing
-- CHECK user_wallet_non_negative therefore makes "available >= 0" a database
-- constraint: no interleaving of concurrent Reserves and Charges can commit a
-- hold or an expense the available money does not cover. The hold account
-- cannot go negative either (nothing can be captured or returned twice).
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ('user_wallet', 'user_holds', 'system'));
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_holds_non_negative;
ALTER TABLE accounts ADD CONSTRAINT user_holds_non_negative CHECK (kind <> 'user_holds' OR balance_micros >= 0);
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_wallet_owner;
ALTER TABLE accounts ADD CONSTRAINT user_account_owner CHECK ((kind <> 'system') = (uid IS NOT NULL));
-- A user owns one account of each user kind.
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_uid_key;
ALTER TABLE accounts ADD CONSTRAINT accounts_uid_kind_key UNIQUE (uid, kind);

-- 'hold' (wallet → holds) and 'hold_release' (holds → wallet) move money
-- between two accounts of the same user; they never appear in the
-- transaction history. A capture is an ordinary 'expense'.
ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_type_check
    CHECK (type IN ('deposit', 'income', 'expense', 'hold', 'hold_release'));
-- The history reads only the user-visible types: keep that read on an index
-- that does not contain the (about two in three) hold rows.
CREATE INDEX IF NOT EXISTS transfers_uid_seq_visible_idx ON transfers (uid, seq DESC)
    WHERE type IN ('deposit', 'income', 'expense');

CREATE TABLE IF NOT EXISTS holds (
    id                   uuid        PRIMARY KEY,
    uid                  text        NOT NULL,
    -- The caller's Reserve key (its own namespace, independent of transfer keys).
    idempotency_key      text        NOT NULL UNIQUE,
    amount_micros        bigint      NOT NULL CHECK (amount_micros > 0),
    status               text        NOT NULL CHECK (status IN ('held', 'captured', 'released', 'expired')),
    captured_micros      bigint      NOT NULL DEFAULT 0,
    metadata             jsonb       NOT NULL DEFAULT '{}'::jsonb,   -- Reserve metadata
    -- What Capture was called with (compared on a repeated Capture).
    capture_description  text        NOT NULL DEFAULT '',
    capture_metadata     jsonb       NOT NULL DEFAULT '{}'::jsonb,
    hold_transfer_id     uuid        NOT NULL REFERENCES transfers (id),
    capture_transfer_id  uuid        REFERENCES transfers (id),     -- the expense (captured_micros > 0)
    release_transfer_id  uuid        REFERENCES transfers (id),     -- what went back to the wallet (if any)
    expires_at           timestamptz NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    settled_at           timestamptz,
    CONSTRAINT holds_captured_range CHECK (captured_micros >= 0 AND captured_micros <= amount_micros),
    CONSTRAINT holds_captured_only_when_captured CHECK (status = 'captured' OR captured_micros = 0),
    CONSTRAINT holds_settled CHECK ((status = 'held') = (settled_at IS NULL)),
    CONSTRAINT holds_capture_transfer CHECK ((capture_transfer_id IS NOT NULL) = (captured_micros > 0)),
    CONSTRAINT holds_release_transfer CHECK ((release_transfer_id IS NOT NULL) =
        (status IN ('released', 'expired') OR (status = 'captured' AND captured_micros < amount_micros)))
);

-- The sweeper's scan (oldest expiry first) and the per-user lookup of
-- expired holds; both only over open holds, which are few (answers in flight).
CREATE INDEX IF NOT EXISTS holds_open_expiry_idx ON holds (expires_at) WHERE status = 'held';
CREATE INDEX IF NOT EXISTS holds_open_uid_idx ON holds (uid, expires_at) WHERE status = 'held';

-- +goose Down
DROP TABLE IF EXISTS holds;
DROP INDEX IF EXISTS transfers_uid_seq_visible_idx;
ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_type_check CHECK (type IN ('deposit', 'income', 'expense'));
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_uid_kind_key;
ALTER TABLE accounts ADD CONSTRAINT accounts_uid_key UNIQUE (uid);
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_account_owner;
ALTER TABLE accounts ADD CONSTRAINT user_wallet_owner CHECK ((kind = 'user_wallet') = (uid IS NOT NULL));
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS user_holds_non_negative;
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ('user_wallet', 'system'));
