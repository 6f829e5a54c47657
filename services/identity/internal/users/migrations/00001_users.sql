-- +goose Up
CREATE TABLE IF NOT EXISTS users (
    uid                          text        PRIMARY KEY,
    email                        text,
    display_name                 text,
    username                     text,
    name                         text,
    photo_url                    text,
    interested_in_public_agents  boolean     NOT NULL DEFAULT false,
    created_at                   timestamptz NOT NULL DEFAULT now(),
    updated_at                   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS users_email_lower_idx ON users (lower(email));

-- +goose Down
DROP TABLE IF EXISTS users;
