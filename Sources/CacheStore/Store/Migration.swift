/// One forward-only schema step: the SQL that brings a store to `user_version` `version`.
struct Migration: Sendable {
    let version: Int
    let sql: String

    /// Applies the migrations newer than the store's `user_version`, in order, one transaction each.
    ///
    /// The version is read again inside each `BEGIN IMMEDIATE` transaction, so that two processes
    /// opening a new store at once never apply a step twice. A failing step rolls back entirely and
    /// leaves the store at the previous version.
    static func migrate(_ connection: Connection, with migrations: [Migration], retryingFor limit: Double) throws {
        for migration in migrations {
            try connection.writeTransaction(retryingFor: limit) {
                let current = try connection.int64("PRAGMA user_version") ?? 0
                guard current < migration.version else { return }
                try connection.execute(sql: migration.sql)
                try connection.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
                try connection.execute(sql: "PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
