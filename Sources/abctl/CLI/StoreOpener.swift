import CommandLineKit
import Events
import Foundation
import PostgresStore
import SQLiteStore

/// Opens the store that `--db` (or `ABCTL_DB`) names: the one place abctl picks a store, used
/// by every command that takes `--db`. A path is a SQLite file (the embedded default); a
/// `postgres://` or `postgresql://` URL is a PostgreSQL database (several nodes on one store).
enum StoreOpener {
    /// What a command asks of the store.
    struct Needs {
        /// Refuse a location with no database yet (`report`: a new empty file helps nobody).
        var mustExist = false
        /// Commits wait for the disk. Off only for the simulator, whose events acknowledge nobody.
        var durable = true
        /// Idle read connections kept open.
        var readers = 4
        /// The writer's cache in MiB (`abctl ingest` reads `ABCTL_CACHE_MIB`); nil for the store's default.
        var cacheMiB: Int?
    }

    static func open(_ location: String, _ needs: Needs = Needs()) throws -> any EventStore {
        if postgresScheme(location) != nil {
            do {
                // The URL is never echoed (it may carry a password); the error names host and database.
                return try PostgresEventStore(url: location, options: .init(maxIdleReaders: needs.readers))
            } catch {
                throw CLIError.runtime("cannot open the event store: \(error)")
            }
        }
        if needs.mustExist, !FileManager.default.fileExists(atPath: location) {
            throw CLIError.runtime("no database at '\(location)'; store events with 'abctl ingest' first, or pass --db")
        }
        var options = SQLiteEventStore.Options(durability: needs.durable ? .full : .normal, maxIdleReaders: needs.readers)
        if let mib = needs.cacheMiB { options.pageCacheMiB = mib }
        do {
            return try SQLiteEventStore(path: location, options: options)
        } catch {
            throw CLIError.runtime("cannot open the event store \(location): \(error)")
        }
    }

    /// How output names the store: the path of a SQLite file; host, port and database of a
    /// PostgreSQL URL, never the URL itself (it may carry a password).
    static func displayName(_ location: String) -> String {
        guard postgresScheme(location) != nil else { return location }
        return "PostgreSQL " + ((try? ConnectionTarget(url: location).location) ?? "(unparsable URL)")
    }

    /// `postgres` or `postgresql` when `location` is a libpq connection URI.
    static func postgresScheme(_ location: String) -> String? {
        ["postgres", "postgresql"].first { location.lowercased().hasPrefix($0 + "://") }
    }
}
