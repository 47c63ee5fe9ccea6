import Events
import Foundation

/// The PostgreSQL layout and its migrations.
///
/// Every key starts with `user_id`, so the same tables can be distributed by user
/// on Citus (`copy_cache`, keyed by experiment, would be a reference table there). Text that
/// reports sort by uses the "C" collation: byte order, as SQLite compares, so rows reach the
/// report in the same order from both stores and sums come out bit for bit the same.
enum PostgresSchema {
    struct Migration {
        var version: Int
        var description: String
        var sql: String
        /// Facts rows written before it lack what it adds: the rows it names (`FactsMigration`) are
        /// recomputed after the last step, in the same transaction.
        var refreshesFacts = false
    }

    /// From `alignedFrom` on, a version names the same change here and in SQLite's `Schema`: a new
    /// column of `EventColumns` is one migration in each store under one number. Below it each
    /// store has its own steps (SQLite's 3 and 4 are in this store's 1, or not needed here; this
    /// store's 3 is its own), and there is no version 4.
    static let alignedFrom = 5

    static let migrations: [Migration] = [
        Migration(version: 1, description: "events and per-(user, experiment) facts", sql: """
            CREATE TABLE events (
                user_id text COLLATE "C" NOT NULL,
                event_id text COLLATE "C" NOT NULL,
                type smallint NOT NULL,
                ts bigint NOT NULL,
                experiment text COLLATE "C",
                variant text COLLATE "C",
                revenue double precision,
                currency text,
                product_id text,
                copy_source text,
                copy_text text,
                copy_fallback_reason text,
                PRIMARY KEY (user_id, event_id)
            );
            CREATE TABLE facts (
                user_id text COLLATE "C" NOT NULL,
                experiment text COLLATE "C" NOT NULL,
                variant text COLLATE "C" NOT NULL,
                first_exposure_ts bigint NOT NULL,
                trial_start_ts bigint,
                first_paid_ts bigint,
                first_converted_ts bigint,
                first_cancel_ts bigint,
                refunded_ts bigint,
                net_revenue double precision NOT NULL,
                copy_source text,
                copy_fallback_reason text,
                revenue_entries bytea,
                crossed_over boolean NOT NULL,
                PRIMARY KEY (user_id, experiment)
            );
            CREATE INDEX facts_by_experiment ON facts (experiment, user_id);
            """),
        Migration(version: 2, description: "server-generated paywall lines by (experiment, variant, brief)", sql: """
            CREATE TABLE copy_cache (
                experiment text COLLATE "C" NOT NULL,
                variant text COLLATE "C" NOT NULL,
                brief text COLLATE "C" NOT NULL,
                line text NOT NULL,
                created_ts bigint NOT NULL,
                PRIMARY KEY (experiment, variant, brief)
            );
            """),
        // Writers rewrite a user's facts row on each of the user's later events; with room left
        // on its page the new version stays there (a HOT update: no index entries, the old
        // version pruned in place), so the table stays near its live size and a report reads
        // fewer pages (1M users after a 3M-event ingest: 202 MB and 181k buffers read, against
        // 301 MB and 346k when full). Pages written from now on keep the room.
        Migration(version: 3, description: "facts pages keep room for in-place updates", sql: """
            ALTER TABLE facts SET (fillfactor = 80);
            """),
        // A Stripe refund names only its charge, a Play voided purchase only its token.
        // Keyed by the vendor's id, not the user (a reference table on Citus).
        Migration(version: 5, description: "payments store webhooks reported, by the vendor's key", sql: """
            CREATE TABLE webhook_payments (
                key text COLLATE "C" PRIMARY KEY,
                user_id text COLLATE "C" NOT NULL,
                currency text NOT NULL,
                amount_minor bigint NOT NULL,
                refunded_minor bigint NOT NULL
            );
            """),
        // An exposure's placement and attributes (`ExposureAttributes.encoded`), on the event
        // and, from the first exposure, in the facts. Older events carry neither.
        Migration(version: 6, description: "exposure placement and attributes on events and facts", sql: """
            ALTER TABLE events ADD COLUMN placement text, ADD COLUMN attributes bytea;
            ALTER TABLE facts ADD COLUMN placement text, ADD COLUMN attributes bytea;
            """),
        // Safeguard stops: one row per stop, written whole in one statement; at most one in force per
        // (experiment, arm). notified_ts is the --notify-url outbox's mark. Keyed by experiment,
        // like copy_cache: a reference table on Citus.
        Migration(version: 7, description: "safeguard stops, with who reset them and the notification outbox", sql: """
            CREATE TABLE safeguard_stops (
                id text COLLATE "C" PRIMARY KEY,
                experiment text COLLATE "C" NOT NULL,
                arm text COLLATE "C" NOT NULL,
                metric text NOT NULL,
                action text NOT NULL,
                stopped_ts bigint NOT NULL,
                figures text NOT NULL,
                reset_ts bigint,
                reset_by text,
                notified_ts bigint
            );
            CREATE UNIQUE INDEX safeguard_stops_in_force ON safeguard_stops (experiment, arm) WHERE reset_ts IS NULL;
            """),
        // One row at most: where simulated data ends (ObservationWindowStore).
        Migration(version: 8, description: "where a simulation's data ends (observed until)", sql: """
            CREATE TABLE observation (
                id integer PRIMARY KEY CHECK (id = 1),
                observed_until_ts bigint NOT NULL
            );
            """),
        // Revenue in another currency is stored converted; the amount and currency as sent are kept.
        Migration(version: 9, description: "events keep the original amount and currency of converted revenue", sql: """
            ALTER TABLE events ADD COLUMN original_revenue double precision, ADD COLUMN original_currency text;
            """),
        // An exposure's store account id (what the app handed the App Store or Google Play for
        // the user), looked up by the webhooks through the index (not unique: on Citus a lookup asks
        // every shard); the trial a store granted, on the trial start and, from the first one after
        // exposure, in the facts (the report's `offer_mismatch`). Older events carry neither.
        Migration(version: 10, description: "store account ids on exposures, granted trial days on trial starts and facts", sql: """
            ALTER TABLE events ADD COLUMN store_account_id text COLLATE "C", ADD COLUMN trial_days integer;
            ALTER TABLE facts ADD COLUMN trial_days integer;
            CREATE INDEX events_by_store_account ON events (store_account_id, ts) WHERE store_account_id IS NOT NULL;
            """),
        // The `--notify-url` outbox sends a stop's reset too, once acknowledged.
        Migration(version: 11, description: "the outbox's mark for a safeguard reset's notification", sql: """
            ALTER TABLE safeguard_stops ADD COLUMN reset_notified_ts bigint;
            """),
        // People (docs/People.md): as SQLite's (see Schema.swift there). Every key starts with a user id.
        Migration(version: 12, description: "people: identified events, links of ids to a person, known ids, conflicts", sql: """
            ALTER TABLE events ADD COLUMN identity text COLLATE "C";
            CREATE TABLE people (
                user_id text COLLATE "C" PRIMARY KEY,
                person_id text COLLATE "C" NOT NULL
            );
            CREATE INDEX people_by_person ON people (person_id);
            CREATE TABLE known_ids (user_id text COLLATE "C" PRIMARY KEY);
            CREATE TABLE identity_conflicts (
                user_id text COLLATE "C" NOT NULL,
                event_id text COLLATE "C" NOT NULL,
                identity text COLLATE "C" NOT NULL,
                PRIMARY KEY (user_id, event_id)
            );
            """),
        // A bandit's allocation periods, one row per (experiment, period) written once by the lease holder.
        Migration(version: 13, description: "a bandit's allocation periods: the weights in force from each boundary", sql: """
            CREATE TABLE allocation_periods (
                experiment text COLLATE "C" NOT NULL,
                period integer NOT NULL,
                from_ts bigint NOT NULL,
                rule text NOT NULL,
                figures text NOT NULL,
                computed_ts bigint NOT NULL,
                PRIMARY KEY (experiment, period)
            );
            """),
        // The store a payment went through and its proceeds (as the store said them, or the
        // revenue less the store's cut, before tax). Facts keep proceeds in their revenue entries, whose
        // older form reads as proceeds equal to revenue (no store named, no cut), so nothing is recomputed.
        Migration(version: 14, description: "events keep their store and proceeds", sql: """
            ALTER TABLE events ADD COLUMN store text, ADD COLUMN proceeds double precision, ADD COLUMN proceeds_before_tax boolean;
            """),
        // A webhook redelivery is recognised by the vendor's delivery id before any
        // outside call, and answered as the type first stored. Keyed by the vendor's id (a reference
        // table on Citus, as webhook_payments).
        Migration(version: 15, description: "webhook deliveries stored, by the vendor's delivery id", sql: """
            CREATE TABLE webhook_deliveries (
                key text COLLATE "C" PRIMARY KEY,
                user_id text COLLATE "C" NOT NULL,
                type smallint NOT NULL
            );
            """),
        // A bandit's exposure echoes the allocation period assign answered (the period's start);
        // the first exposure's is the facts' period. Events stored before kept none, so
        // nothing is recomputed (those users count in the period of their first exposure's time).
        Migration(version: 16, description: "exposures keep their allocation period, and facts the first exposure's", sql: """
            ALTER TABLE events ADD COLUMN allocation_period_ts bigint;
            ALTER TABLE facts ADD COLUMN allocation_period_ts bigint;
            """),
        // The notifications outbox (docs/Notifications.md), one row per (notification, target), recorded
        // before any try; the sending node claims a row for a while, and a 2xx ends it for good. Keyed by
        // the notification, not the user (a reference table on Citus, as webhook_deliveries).
        Migration(version: 17, description: "the notifications outbox: one row per notification and target", sql: """
            CREATE TABLE notifications (
                id text COLLATE "C" NOT NULL,
                target text COLLATE "C" NOT NULL,
                type text NOT NULL,
                experiment text COLLATE "C" NOT NULL,
                at_ts bigint NOT NULL,
                text text NOT NULL,
                details text NOT NULL,
                state text NOT NULL,
                attempts integer NOT NULL,
                recorded_ts bigint NOT NULL,
                next_try_ts bigint NOT NULL,
                claimed_by text,
                claimed_until_ts bigint,
                finished_ts bigint,
                last_error text,
                PRIMARY KEY (id, target)
            );
            CREATE INDEX notifications_due ON notifications(state, next_try_ts);
            CREATE INDEX notifications_by_experiment ON notifications(experiment, recorded_ts);
            """),
        // The console's sessions (every node knows them), the server's secret when none is configured
        // (generated once, shared by the nodes), failed sign-ins by address, and share links
        // (docs/Console.md). Keyed by their own ids, not by user: reference tables on Citus.
        Migration(version: 18, description: "console sessions, the server's secret, failed sign-ins, share links", sql: """
            CREATE TABLE console_sessions (
                id text COLLATE "C" PRIMARY KEY,
                key_hmac text COLLATE "C" NOT NULL,
                name text NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                revoked_at bigint
            );
            CREATE TABLE console_secrets (
                name text COLLATE "C" PRIMARY KEY,
                secret text NOT NULL
            );
            CREATE TABLE console_sign_in_failures (
                address text COLLATE "C" NOT NULL,
                at bigint NOT NULL
            );
            CREATE INDEX console_sign_in_failures_by_address ON console_sign_in_failures (address, at);
            CREATE TABLE console_shares (
                id text COLLATE "C" PRIMARY KEY,
                experiment text COLLATE "C" NOT NULL,
                parameters text NOT NULL,
                key_hmac text COLLATE "C" NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                revoked_at bigint
            );
            CREATE INDEX console_shares_by_experiment ON console_shares (experiment, created_at);
            """),
        // A report's health counts the store payments in the experiment's dates (`unmatched_store_payments`):
        // an index of those few rows by time, so a report never walks every event for them. Its
        // condition is the query's, word for word, which is how both planners know they may use it.
        Migration(version: 19, description: "store payments indexed by time", sql: """
            CREATE INDEX events_store_payments ON events (ts) WHERE \(StorePaymentQuery.condition);
            """),
        // Each safeguard's mixing scale, fixed at its first look and kept (first writer wins), so every
        // later look and every node tests with the same one. Keyed by experiment: a reference table on Citus.
        //
        Migration(version: 20, description: "each safeguard's mixing scale, fixed at its first look", sql: """
            CREATE TABLE safeguard_scales (
                experiment text COLLATE "C" NOT NULL,
                arm text COLLATE "C" NOT NULL,
                metric text COLLATE "C" NOT NULL,
                mixing_variance double precision NOT NULL,
                control_rate double precision NOT NULL,
                fixed_ts bigint NOT NULL,
                PRIMARY KEY (experiment, arm, metric)
            );
            """),
        // The subscription's life as the stores tell it: an expiry's reason, a billing issue's grace,
        // a plan change's previous product and when it takes effect. Older events carry none of these
        // (their types did not exist), so nothing is recomputed.
        Migration(version: 21, description: "events keep an expiry's reason, a billing issue's grace and a plan change's products", sql: """
            ALTER TABLE events ADD COLUMN reason text, ADD COLUMN grace_until_ts bigint, ADD COLUMN previous_product_id text,
                ADD COLUMN effective text;
            """),
        // Facts keep the subscription's end as the stores tell it: the first expiry and its kind, the
        // first billing issue, and the uncancels (a stray one followed no cancel). The events these
        // read arrived with version 21, so rows from before hold none and nothing is recomputed.
        Migration(version: 22, description: "facts keep expiries, billing issues and uncancels", sql: """
            ALTER TABLE facts ADD COLUMN expired_ts bigint, ADD COLUMN expiry_kind text, ADD COLUMN billing_issue_ts bigint,
                ADD COLUMN first_uncancel_ts bigint, ADD COLUMN stray_uncancel_ts bigint;
            """),
        // Facts keep the ends as they stood at every moment: the cancels undone in time with when, and
        // the ends after the first expiry (a re-subscription's). Rows from before kept only the cancel
        // that stands now: those of users with an uncancel or an expiry are recomputed.
        Migration(version: 23, description: "facts keep undone cancels and later ends", sql: """
            ALTER TABLE facts ADD COLUMN undone_cancels text, ADD COLUMN later_ends text;
            """, refreshesFacts: true),
        // The console's freshness: each experiment's change counter and the report the lease holder
        // last computed. Writers on many connections and nodes move a counter at once, so it is
        // kept in shards (one per writer connection's slot) and read as their sum: two
        // transactions touching one experiment seldom wait for each other's commit.
        Migration(version: 24, description: "each experiment's change counter and its stored console report", sql: """
            CREATE TABLE experiment_changes (
                experiment text COLLATE "C" NOT NULL,
                shard integer NOT NULL,
                counter bigint NOT NULL,
                PRIMARY KEY (experiment, shard)
            );
            CREATE TABLE console_reports (
                experiment text COLLATE "C" PRIMARY KEY,
                counter bigint NOT NULL,
                inputs text NOT NULL,
                generated_ts bigint NOT NULL,
                computed_ts bigint NOT NULL,
                summary text NOT NULL,
                body text NOT NULL
            );
            """),
        // The console's placements page counts each placement's exposures of the last 7 days by
        // experiment: an index of those rows that answers the count alone (its condition the query's).
        Migration(version: 25, description: "exposures indexed by placement and time", sql: """
            CREATE INDEX events_placement_exposures ON events (placement, ts, experiment) WHERE \(PlacementExposureQuery.condition);
            """),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Any constant works; it only has to be the same for every abctl.
    static let migrationLockKey = "7385417209384510221"
    /// Held by the node that evaluates safeguards (and sends their notifications) at the moment.
    static let safeguardLockKey = "7385417209384510222"

    /// Brings the database to `latestVersion` under a session advisory lock, so two nodes that
    /// start at once migrate it once: the second waits, then finds nothing to do. A database
    /// already newer than this binary is refused (`schemaTooNew`).
    static func migrate(_ connection: Connection) throws {
        try connection.execute("SELECT pg_advisory_lock(\(migrationLockKey))", context: "migrate (lock)")
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock(\(migrationLockKey))", context: "migrate (unlock)") }
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                description text NOT NULL,
                applied_at text NOT NULL
            )
            """, context: "migrate")
        try connection.execute("BEGIN", context: "migrate")
        do {
            try renumberFromBeforeAlignment(connection)
            let current = Int(try connection.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", context: "migrate").int64(0, 0))
            if current > latestVersion {
                throw PostgresError(kind: .schemaTooNew(found: current, supported: latestVersion), context: "migrate",
                                    message: "schema too new", location: connection.target.location)
            }
            let pending = migrations.filter { $0.version > current }
            for migration in pending {
                try connection.execute(migration.sql, context: "migrate to version \(migration.version)")
                try connection.execute("INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)",
                                       [String(migration.version), migration.description, ISO8601DateFormatter().string(from: Date())],
                                       context: "migrate")
            }
            // Once, after the last step: the refresh writes the columns of the latest schema.
            if current > 0, pending.contains(where: \.refreshesFacts) { try FactsMigration.refreshSubscriptionLives(connection) }
            try connection.execute("COMMIT", context: "migrate")
        } catch {
            _ = try? connection.execute("ROLLBACK", context: "migrate")
            throw error
        }
    }

    /// A database migrated before the numbers were aligned recorded this store's steps from the
    /// webhook payments on one lower (4 to 15 for today's 5 to 16). Version 4 is recorded only there,
    /// so such a database is known by it; its numbers move up by one, in the migration's
    /// transaction, and nothing is applied twice. (Two statements: PostgreSQL checks the key row by
    /// row, so `version + 1` in place would collide with the next row.)
    static func renumberFromBeforeAlignment(_ connection: Connection) throws {
        let old = try connection.execute("SELECT count(*) FROM schema_migrations WHERE version = 4", context: "migrate (numbering)")
        guard old.int64(0, 0) > 0 else { return }
        try connection.execute("""
            UPDATE schema_migrations SET version = -(version + 1) WHERE version >= 4;
            UPDATE schema_migrations SET version = -version WHERE version < 0
            """, context: "migrate (numbering)")
    }
}
