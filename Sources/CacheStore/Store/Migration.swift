/// One forward-only schema step: the SQL that brings a store to `user_version` `version`.
struct Migration: Sendable {
    let version: Int
    let sql: String

    /// Applies the migrations newer than the store's `user_version`, in order, one transaction each.
    ///
    /// The version is read first without a transaction: a store that is already current, as nearly
    /// every one opened is, takes no write lock, so opening it does not wait for another process's
    /// transaction (a merge holds one for a whole source). The version is read again inside each
    /// `BEGIN IMMEDIATE` transaction, so that two processes opening a new store at once never apply a
    /// step twice. A failing step rolls back entirely and leaves the store at the previous version.
    /// Steps run with foreign keys off, as SQLite's procedure for changing a table requires (dropping
    /// a table must not cascade), and each is checked with `PRAGMA foreign_key_check` before it
    /// commits; the connection's setting is restored afterwards.
    static func migrate(
        _ connection: Connection, with migrations: [Migration], retryingFor limit: Double, path: String
    ) throws {
        let version = try connection.int64("PRAGMA user_version") ?? 0
        let pending = migrations.filter { $0.version > version }
        guard !pending.isEmpty else { return }
        let foreignKeys = try connection.int64("PRAGMA foreign_keys") ?? 0
        try connection.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { try? connection.execute(sql: "PRAGMA foreign_keys = \(foreignKeys)") }
        for migration in pending {
            try connection.writeTransaction(retryingFor: limit) {
                let current = try connection.int64("PRAGMA user_version") ?? 0
                guard current < migration.version else { return }
                try connection.execute(sql: migration.sql)
                var violations = 0
                try connection.forEachRow("PRAGMA foreign_key_check") { _ in violations += 1 }
                guard violations == 0 else {
                    throw CacheStore.Error(
                        code: .database,
                        message: "Migrating the cache store '\(path)' to schema version \(migration.version) "
                            + "would leave \(violations) rows breaking a foreign key, so it was rolled back."
                    )
                }
                try connection.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
                try connection.execute(sql: "PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
