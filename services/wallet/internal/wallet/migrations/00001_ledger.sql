-- +goose Up
-- Double-entry ledger. Amounts are integer micro-dollars (1 USD = 1,000,000).
-- Every transfer debits one account and credits another by the same positive
-- amount; an account's balance is its credits minus its debits and is updated
-- in the same transaction as the transfer insert, so the balances always sum
-- to zero. User wallets can never go below zero.
CREATE TABLE IF NOT EXISTS accounts (
    id              text        PRIMARY KEY,              -- 'user:<uid>' or a system account
    kind            text        NOT NULL CHECK (kind IN ('user_wallet', 'system')),
    uid             text        UNIQUE,                   -- owner of a user wallet
    balance_micros  bigint      NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT user_wallet_non_negative CHECK (kind <> 'user_wallet' OR balance_micros >= 0),
    CONSTRAINT user_wallet_owner CHECK ((kind = 'user_wallet') = (uid IS NOT NULL))
);

INSERT INTO accounts (id, kind) VALUES
    ('system:stripe_clearing', 'system'),   -- money received through Stripe (debited by deposits)
    ('system:platform_revenue', 'system'),  -- credited by charges (expenses) of user wallets
    ('system:platform_payouts', 'system')   -- debited by income credited to user wallets
ON CONFLICT (id) DO NOTHING;

CREATE TABLE IF NOT EXISTS transfers (
    id               uuid        PRIMARY KEY,
    -- Monotonically increasing. It is drawn after the user wallet's row lock is
    -- taken, so a user's transfers become visible in seq order (stable paging).
    seq              bigint      GENERATED ALWAYS AS IDENTITY (CACHE 1) UNIQUE,
    idempotency_key  text        NOT NULL UNIQUE,
    debit_account    text        NOT NULL REFERENCES accounts (id),
    credit_account   text        NOT NULL REFERENCES accounts (id),
    amount_micros    bigint      NOT NULL CHECK (amount_micros > 0),
    type             text        NOT NULL CHECK (type IN ('deposit', 'income', 'expense')),
    uid              text        NOT NULL,                -- the user wallet involved
    description      text        NOT NULL DEFAULT '',
    provider         text        NOT NULL,
    metadata         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK (debit_account <> credit_account)
);

CREATE INDEX IF NOT EXISTS transfers_uid_seq_idx ON transfers (uid, seq DESC);

-- Transfers are immutable: corrections are new transfers.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION transfers_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'transfers are immutable';
END;
$$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS transfers_immutable ON transfers;
CREATE TRIGGER transfers_immutable BEFORE UPDATE OR DELETE ON transfers
    FOR EACH ROW EXECUTE FUNCTION transfers_immutable();

-- Stripe Checkout Sessions created by the wallet, recorded before the client
-- gets the URL. The recorded amount is what a paid webhook credits.
CREATE TABLE IF NOT EXISTS checkout_sessions (
    id               text        PRIMARY KEY,             -- cs_...
    uid              text        NOT NULL,
    amount_cents     bigint      NOT NULL CHECK (amount_cents > 0),
    currency         text        NOT NULL,
    status           text        NOT NULL CHECK (status IN ('open', 'processing', 'paid', 'expired', 'failed')),
    url              text        NOT NULL DEFAULT '',
    transfer_id      uuid        REFERENCES transfers (id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS checkout_sessions_uid_idx ON checkout_sessions (uid, created_at DESC);

-- Stripe event ids already handled (deduplication, same transaction as the effect).
CREATE TABLE IF NOT EXISTS processed_webhook_events (
    event_id     text        PRIMARY KEY,                 -- evt_...
    type         text        NOT NULL,
    session_id   text,
    outcome      text        NOT NULL DEFAULT '',
    received_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE IF EXISTS processed_webhook_events;
DROP TABLE IF EXISTS checkout_sessions;
DROP TABLE IF EXISTS transfers;
DROP FUNCTION IF EXISTS transfers_immutable();
DROP TABLE IF EXISTS accounts;
