import FoundationEssentials

/// Which partition a credential source was last found to belong to, so that the partition of a user
/// whom the instance named online can be read offline with the same credential source.
extension CacheStore {
    /// Records that the credentials named by `source` (a ``Sessions``-side digest, never a token)
    /// belong to the identity `key`, replacing what was recorded for that source before.
    ///
    /// - Throws: ``CacheStore/Error``.
    public func bindIdentity(source: String, to key: String) throws {
        try write("record which identity a credential source belongs to") { connection in
            try connection.run(
                """
                INSERT INTO identity_binding (source, identity_key, bound_at) VALUES (?, ?, ?)
                ON CONFLICT (source) DO UPDATE SET identity_key = excluded.identity_key, bound_at = excluded.bound_at
                """,
                [.text(source), .text(key), .real(Date().timeIntervalSince1970)])
        }
    }

    /// The identity `source` was last found to belong to, or `nil` when none was recorded (also in a
    /// store opened for reading only that predates the record, schema version 5 or older).
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func boundIdentity(source: String) throws -> String? {
        try read("look up which identity a credential source belongs to") { connection in
            guard try connection.int64(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'identity_binding'") == 1
            else { return nil }
            return try connection.text("SELECT identity_key FROM identity_binding WHERE source = ?", [.text(source)])
        }
    }
}
