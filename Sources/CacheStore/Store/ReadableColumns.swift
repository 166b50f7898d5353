/// How reads name the columns that later schema versions added: the column itself, or `NULL` in a
/// store of an older version opened for reading only, which is read without being upgraded.
struct ReadableColumns: Sendable {
    /// The expression that reads a chunk's checksum (version 4).
    let chunkChecksum: String
    /// The start of a query that reads entries for ``CacheEntry/init(row:)``, with
    /// `entry.decoded_from` (version 5).
    let entrySelection: String

    /// The columns of a store of schema version `version`.
    init(schemaVersion version: Int) {
        chunkChecksum = version >= 4 ? "checksum" : "NULL"
        entrySelection = version >= 5 ? CacheEntry.selection : CacheEntry.selection(decodedFrom: "NULL")
    }

    /// The columns of a store of the latest version, such as every store opened for writing.
    static let latest = ReadableColumns(schemaVersion: Schema.latestVersion)
}
