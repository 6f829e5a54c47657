-- +goose Up
-- Every marketplace slug a deleted agent held. A link to /marketplace/{slug}
-- shared while the agent was listed must never lead to another agent later:
-- assignSlug treats these as taken (an agent's e-mail address is kept the
-- same way, agent_emails).
CREATE TABLE IF NOT EXISTS retired_slugs (
    slug       text        PRIMARY KEY,
    agent_id   uuid        NOT NULL,
    retired_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE IF EXISTS retired_slugs;
