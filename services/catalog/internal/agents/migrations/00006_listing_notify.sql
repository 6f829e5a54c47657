-- +goose Up
-- The marketplace's response cache (listingcache.go) is dropped on every
-- catalog replica the moment something a visitor sees of a listed agent
-- changes: these triggers send NOTIFY marketplace_listing at the commit of any
-- such change, whoever makes it (the service, the ratings consumer, an
-- operator's SQL). The counters an answer moves (total_interactions, the
-- typical answer) do not notify: they change with every answer, and the
-- cache's TTL (seconds) bounds how old they may be. Notifications of one
-- transaction are folded into one by PostgreSQL.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION notify_marketplace_listing() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('marketplace_listing', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

DROP TRIGGER IF EXISTS agents_listing_insert_notify ON agents;
CREATE TRIGGER agents_listing_insert_notify AFTER INSERT ON agents
    FOR EACH ROW WHEN (NEW.is_public) EXECUTE FUNCTION notify_marketplace_listing();

DROP TRIGGER IF EXISTS agents_listing_delete_notify ON agents;
CREATE TRIGGER agents_listing_delete_notify AFTER DELETE ON agents
    FOR EACH ROW WHEN (OLD.is_public) EXECUTE FUNCTION notify_marketplace_listing();

DROP TRIGGER IF EXISTS agents_listing_update_notify ON agents;
CREATE TRIGGER agents_listing_update_notify AFTER UPDATE ON agents
    FOR EACH ROW WHEN ((OLD.is_public OR NEW.is_public) AND
        (OLD.is_public, OLD.slug, OLD.owner_uid, OLD.name, OLD.description, OLD.category, OLD.icon_name,
         OLD.icon_color, OLD.tags, OLD.status, OLD.markup_percent, OLD.greeting_cost_cents, OLD.greeting,
         OLD.memory_tokens, OLD.rating_count, OLD.rating_sum, OLD.documents_count, OLD.published_at)
        IS DISTINCT FROM
        (NEW.is_public, NEW.slug, NEW.owner_uid, NEW.name, NEW.description, NEW.category, NEW.icon_name,
         NEW.icon_color, NEW.tags, NEW.status, NEW.markup_percent, NEW.greeting_cost_cents, NEW.greeting,
         NEW.memory_tokens, NEW.rating_count, NEW.rating_sum, NEW.documents_count, NEW.published_at))
    EXECUTE FUNCTION notify_marketplace_listing();

-- A creator's name is on every card of theirs ("A creator" until the
-- catalog knows it). known_users is upserted on every sign-in: an update
-- counts only when it changes the name; a first insert always (once a user).
DROP TRIGGER IF EXISTS known_users_listing_notify ON known_users;
CREATE TRIGGER known_users_listing_notify AFTER UPDATE ON known_users
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION notify_marketplace_listing();
DROP TRIGGER IF EXISTS known_users_listing_insert_notify ON known_users;
CREATE TRIGGER known_users_listing_insert_notify AFTER INSERT ON known_users
    FOR EACH ROW EXECUTE FUNCTION notify_marketplace_listing();

-- +goose Down
DROP TRIGGER IF EXISTS known_users_listing_insert_notify ON known_users;
DROP TRIGGER IF EXISTS known_users_listing_notify ON known_users;
DROP TRIGGER IF EXISTS agents_listing_update_notify ON agents;
DROP TRIGGER IF EXISTS agents_listing_delete_notify ON agents;
DROP TRIGGER IF EXISTS agents_listing_insert_notify ON agents;
DROP FUNCTION IF EXISTS notify_marketplace_listing();
