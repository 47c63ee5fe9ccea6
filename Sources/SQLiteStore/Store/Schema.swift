import Events
import Foundation

/// The database layout and its migrations, applied in order inside one transaction.
///
/// `schema_migrations` records each applied version; its shape never changes, so any
/// abctl can read a newer database's version and refuse it with a clear error.
enum Schema {
    struct Migration {
        var version: Int
        var description: String
        var sql: String
        /// The step adds facts columns that only a recomputation from the events can fill.
        var refreshesFacts = false
    }

    static let migrations: [Migration] = [
        Migration(version: 1, description: "events and per-(experiment, user) facts", sql: """
            CREATE TABLE events (
                user_id TEXT NOT NULL,
                event_id TEXT NOT NULL,
                type INTEGER NOT NULL,
                ts INTEGER NOT NULL,
                experiment TEXT,
                variant TEXT,
                revenue REAL,
                currency TEXT,
                product_id TEXT,
                copy_source TEXT,
                copy_text TEXT,
                copy_fallback_reason TEXT,
                PRIMARY KEY (user_id, event_id)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX events_by_event_id ON events(event_id);
            CREATE TABLE facts (
                experiment TEXT NOT NULL,
                user_id TEXT NOT NULL,
                variant TEXT NOT NULL,
                first_exposure_ts INTEGER NOT NULL,
                trial_start_ts INTEGER,
                first_paid_ts INTEGER,
                first_converted_ts INTEGER,
                first_cancel_ts INTEGER,
                refunded_ts INTEGER,
                net_revenue REAL NOT NULL,
                copy_source TEXT,
                copy_fallback_reason TEXT,
                PRIMARY KEY (experiment, user_id)
            ) WITHOUT ROWID;
            """),
        Migration(version: 2, description: "server-generated paywall lines by (experiment, variant, brief)", sql: """
            CREATE TABLE copy_cache (
                experiment TEXT NOT NULL,
                variant TEXT NOT NULL,
                brief TEXT NOT NULL,
                line TEXT NOT NULL,
                created_ts INTEGER NOT NULL,
                PRIMARY KEY (experiment, variant, brief)
            ) WITHOUT ROWID;
            """),
        Migration(version: 3, description: "facts keep revenue entries by offset from first exposure, and crossover", sql: """
            ALTER TABLE facts ADD COLUMN revenue_entries BLOB;
            ALTER TABLE facts ADD COLUMN crossed_over INTEGER NOT NULL DEFAULT 0;
            """, refreshesFacts: true),
        // The idempotency key is (user_id, event_id), the events' primary key; the same
        // event_id under another user is another event, and every key starts with the user.
        Migration(version: 4, description: "idempotency key (user_id, event_id): the unique event_id index goes",
                  sql: "DROP INDEX IF EXISTS events_by_event_id;"),
        // A Stripe refund names only its charge, a Play voided purchase only its token.
        Migration(version: 5, description: "payments store webhooks reported, by the vendor's key", sql: """
            CREATE TABLE webhook_payments (
                key TEXT PRIMARY KEY,
                user_id TEXT NOT NULL,
                currency TEXT NOT NULL,
                amount_minor INTEGER NOT NULL,
                refunded_minor INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        // An exposure's placement and attributes, kept on the event and, from the first
        // exposure, in the facts (segments and post-stratification read them there). Events stored
        // before carry neither, so there is nothing to recompute.
        Migration(version: 6, description: "exposure placement and attributes on events and facts", sql: """
            ALTER TABLE events ADD COLUMN placement TEXT;
            ALTER TABLE events ADD COLUMN attributes BLOB;
            ALTER TABLE facts ADD COLUMN placement TEXT;
            ALTER TABLE facts ADD COLUMN attributes BLOB;
            """),
        // Safeguard stops: one row per stop, written whole in one statement; at most one in force per
        // (experiment, arm). notified_ts is the --notify-url outbox's mark.
        Migration(version: 7, description: "safeguard stops, with who reset them and the notification outbox", sql: """
            CREATE TABLE safeguard_stops (
                id TEXT PRIMARY KEY,
                experiment TEXT NOT NULL,
                arm TEXT NOT NULL,
                metric TEXT NOT NULL,
                action TEXT NOT NULL,
                stopped_ts INTEGER NOT NULL,
                figures TEXT NOT NULL,
                reset_ts INTEGER,
                reset_by TEXT,
                notified_ts INTEGER
            );
            CREATE UNIQUE INDEX safeguard_stops_in_force ON safeguard_stops(experiment, arm) WHERE reset_ts IS NULL;
            """),
        // One row at most: where simulated data ends (ObservationWindowStore).
        Migration(version: 8, description: "where a simulation's data ends (observed until)", sql: """
            CREATE TABLE observation (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                observed_until_ts INTEGER NOT NULL
            );
            """),
        // Revenue in another currency is stored converted; the amount and currency as sent are kept.
        Migration(version: 9, description: "events keep the original amount and currency of converted revenue", sql: """
            ALTER TABLE events ADD COLUMN original_revenue REAL;
            ALTER TABLE events ADD COLUMN original_currency TEXT;
            """),
        // An exposure's store account id (what the app handed the App Store or Google Play for
        // the user), looked up by the webhooks through the index; the trial a store granted, on the
        // trial start and, from the first one after exposure, in the facts (the report's `offer_mismatch`).
        // Events stored before carry neither, so there is nothing to recompute.
        Migration(version: 10, description: "store account ids on exposures, granted trial days on trial starts and facts", sql: """
            ALTER TABLE events ADD COLUMN store_account_id TEXT;
            ALTER TABLE events ADD COLUMN trial_days INTEGER;
            ALTER TABLE facts ADD COLUMN trial_days INTEGER;
            CREATE INDEX events_by_store_account ON events(store_account_id, ts) WHERE store_account_id IS NOT NULL;
            """),
        // The `--notify-url` outbox sends a stop's reset too, once acknowledged.
        Migration(version: 11, description: "the outbox's mark for a safeguard reset's notification", sql: """
            ALTER TABLE safeguard_stops ADD COLUMN reset_notified_ts INTEGER;
            """),
        // People (docs/People.md): an `identified` event's known id; `people` maps every id of a person with
        // more than one id (the person's key, its known id, included) to that key; `known_ids` are the
        // ids that have been an identity; `identity_conflicts` the identifies that changed nothing
        // because the anonymous id was linked already (or known). Nothing before had links.
        Migration(version: 12, description: "people: identified events, links of ids to a person, known ids, conflicts", sql: """
            ALTER TABLE events ADD COLUMN identity TEXT;
            CREATE TABLE people (
                user_id TEXT PRIMARY KEY,
                person_id TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX people_by_person ON people(person_id);
            CREATE TABLE known_ids (user_id TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE identity_conflicts (
                user_id TEXT NOT NULL,
                event_id TEXT NOT NULL,
                identity TEXT NOT NULL,
                PRIMARY KEY (user_id, event_id)
            ) WITHOUT ROWID;
            """),
        // A bandit's allocation periods, one row per (experiment, period) written once by the lease holder.
        Migration(version: 13, description: "a bandit's allocation periods: the weights in force from each boundary", sql: """
            CREATE TABLE allocation_periods (
                experiment TEXT NOT NULL,
                period INTEGER NOT NULL,
                from_ts INTEGER NOT NULL,
                rule TEXT NOT NULL,
                figures TEXT NOT NULL,
                computed_ts INTEGER NOT NULL,
                PRIMARY KEY (experiment, period)
            );
            """),
        // The store a payment went through and its proceeds (as the store said them, or the
        // revenue less the store's cut, before tax). Facts keep proceeds in their revenue entries, whose
        // older form reads as proceeds equal to revenue (no store named, no cut), so nothing is recomputed.
        Migration(version: 14, description: "events keep their store and proceeds", sql: """
            ALTER TABLE events ADD COLUMN store TEXT;
            ALTER TABLE events ADD COLUMN proceeds REAL;
            ALTER TABLE events ADD COLUMN proceeds_before_tax INTEGER;
            """),
        // A webhook redelivery is recognised by the vendor's delivery id before any
        // outside call, and answered as the type first stored.
        Migration(version: 15, description: "webhook deliveries stored, by the vendor's delivery id", sql: """
            CREATE TABLE webhook_deliveries (
                key TEXT PRIMARY KEY,
                user_id TEXT NOT NULL,
                type INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        // A bandit's exposure echoes the allocation period assign answered (the period's start);
        // the first exposure's is the facts' period. Events stored before kept none, so
        // nothing is recomputed (those users count in the period of their first exposure's time).
        Migration(version: 16, description: "exposures keep their allocation period, and facts the first exposure's", sql: """
            ALTER TABLE events ADD COLUMN allocation_period_ts INTEGER;
            ALTER TABLE facts ADD COLUMN allocation_period_ts INTEGER;
            """),
        // The notifications outbox (docs/Notifications.md), one row per (notification, target), recorded
        // before any try; the sending node claims a row for a while, and a 2xx ends it for good.
        Migration(version: 17, description: "the notifications outbox: one row per notification and target", sql: """
            CREATE TABLE notifications (
                id TEXT NOT NULL,
                target TEXT NOT NULL,
                type TEXT NOT NULL,
                experiment TEXT NOT NULL,
                at_ts INTEGER NOT NULL,
                text TEXT NOT NULL,
                details TEXT NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                recorded_ts INTEGER NOT NULL,
                next_try_ts INTEGER NOT NULL,
                claimed_by TEXT,
                claimed_until_ts INTEGER,
                finished_ts INTEGER,
                last_error TEXT,
                PRIMARY KEY (id, target)
            );
            CREATE INDEX notifications_due ON notifications(state, next_try_ts);
            CREATE INDEX notifications_by_experiment ON notifications(experiment, recorded_ts);
            """),
        // The console's sessions (docs/Console.md; every node knows them), the server's secret when none
        // is configured (generated once, shared by the nodes), failed sign-ins by address, and share links.
        Migration(version: 18, description: "console sessions, the server's secret, failed sign-ins, share links", sql: """
            CREATE TABLE console_sessions (
                id TEXT PRIMARY KEY,
                key_hmac TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                revoked_at INTEGER
            ) WITHOUT ROWID;
            CREATE TABLE console_secrets (
                name TEXT PRIMARY KEY,
                secret TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE console_sign_in_failures (
                address TEXT NOT NULL,
                at INTEGER NOT NULL
            );
            CREATE INDEX console_sign_in_failures_by_address ON console_sign_in_failures (address, at);
            CREATE TABLE console_shares (
                id TEXT PRIMARY KEY,
                experiment TEXT NOT NULL,
                parameters TEXT NOT NULL,
                key_hmac TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                revoked_at INTEGER
            ) WITHOUT ROWID;
            CREATE INDEX console_shares_by_experiment ON console_shares (experiment, created_at);
            """),
        // A report's health counts the store payments in the experiment's dates (`unmatched_store_payments`):
        // an index of those few rows by time, so a report never walks every event for them. Its
        // condition is the query's, word for word, which is how both planners know they may use it.
        Migration(version: 19, description: "store payments indexed by time", sql: """
            CREATE INDEX events_store_payments ON events (ts) WHERE \(StorePaymentQuery.condition);
            """),
        // Each safeguard's mixing scale, fixed at its first look and kept (first writer wins), so every
        // later look and every process tests with the same one.
        Migration(version: 20, description: "each safeguard's mixing scale, fixed at its first look", sql: """
            CREATE TABLE safeguard_scales (
                experiment TEXT NOT NULL,
                arm TEXT NOT NULL,
                metric TEXT NOT NULL,
                mixing_variance REAL NOT NULL,
                control_rate REAL NOT NULL,
                fixed_ts INTEGER NOT NULL,
                PRIMARY KEY (experiment, arm, metric)
            ) WITHOUT ROWID;
            """),
        // The subscription's life as the stores tell it: an expiry's reason, a billing issue's grace,
        // a plan change's previous product and when it takes effect. Older events carry none of these
        // (their types did not exist), so nothing is recomputed.
        Migration(version: 21, description: "events keep an expiry's reason, a billing issue's grace and a plan change's products", sql: """
            ALTER TABLE events ADD COLUMN reason TEXT;
            ALTER TABLE events ADD COLUMN grace_until_ts INTEGER;
            ALTER TABLE events ADD COLUMN previous_product_id TEXT;
            ALTER TABLE events ADD COLUMN effective TEXT;
            """),
        // Facts keep the subscription's end as the stores tell it: the first expiry and its kind, the
        // first billing issue, and the uncancels (a stray one followed no cancel). The events these
        // read arrived with version 21, so rows from before hold none and nothing is recomputed.
        Migration(version: 22, description: "facts keep expiries, billing issues and uncancels", sql: """
            ALTER TABLE facts ADD COLUMN expired_ts INTEGER;
            ALTER TABLE facts ADD COLUMN expiry_kind TEXT;
            ALTER TABLE facts ADD COLUMN billing_issue_ts INTEGER;
            ALTER TABLE facts ADD COLUMN first_uncancel_ts INTEGER;
            ALTER TABLE facts ADD COLUMN stray_uncancel_ts INTEGER;
            """),
        // Facts keep the ends as they stood at every moment: the cancels undone in time with when, and
        // the ends after the first expiry (a re-subscription's). Rows from before kept only the cancel
        // that stands now, so every row is recomputed.
        Migration(version: 23, description: "facts keep undone cancels and later ends", sql: """
            ALTER TABLE facts ADD COLUMN undone_cancels TEXT;
            ALTER TABLE facts ADD COLUMN later_ends TEXT;
            """, refreshesFacts: true),
        // The console's freshness: each experiment's change counter, moved by the transaction that
        // stores events touching it, and the report the lease holder last computed, which every
        // node's pages read.
        Migration(version: 24, description: "each experiment's change counter and its stored console report", sql: """
            CREATE TABLE experiment_changes (
                experiment TEXT PRIMARY KEY,
                counter INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE console_reports (
                experiment TEXT PRIMARY KEY,
                counter INTEGER NOT NULL,
                inputs TEXT NOT NULL,
                generated_ts INTEGER NOT NULL,
                computed_ts INTEGER NOT NULL,
                summary TEXT NOT NULL,
                body TEXT NOT NULL
            ) WITHOUT ROWID;
            """),
        // The console's placements page counts each placement's exposures of the last 7 days by
        // experiment: an index of those rows that answers the count alone (its condition the query's).
        Migration(version: 25, description: "exposures indexed by placement and time", sql: """
            CREATE INDEX events_placement_exposures ON events (placement, ts, experiment) WHERE \(PlacementExposureQuery.condition);
            """),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the database to `latestVersion`, or throws `schemaTooNew` for a newer one.
    static func migrate(_ connection: Connection) throws {
        try connection.transaction {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    description TEXT NOT NULL,
                    applied_at TEXT NOT NULL
                )
                """)
            let current = Int(try connection.scalarInt("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ?? 0)
            if current > latestVersion {
                throw StoreError(kind: .schemaTooNew(found: current, supported: latestVersion),
                                 message: "schema too new", context: "migrate", path: connection.path)
            }
            // Facts are recomputed once, after the last step: the refresh reads and writes the
            // columns of the latest schema, which a later step may add.
            let pending = migrations.filter { $0.version > current }
            for migration in pending {
                try connection.execute(migration.sql)
                let record = try connection.cached("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)")
                try record.bind(1, Int64(migration.version))
                try record.bind(2, migration.description)
                try record.bind(3, Timestamp(Date()).rfc3339)
                try record.run()
            }
            if pending.contains(where: \.refreshesFacts) { try FactsRefresh.refreshAll(connection) }
        }
    }
}
