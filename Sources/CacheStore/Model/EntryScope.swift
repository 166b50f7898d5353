/// Which entries a listing takes: all of them, or only those of one partition, one host, or both.
public struct EntryScope: Sendable, Hashable {
    /// Only entries of this partition, when given.
    public var partition: String?
    /// Only entries of this host (lower case, as ``CacheEntry/host`` holds it), when given.
    public var host: String?

    /// A scope of every entry, narrowed by the values given.
    public init(partition: String? = nil, host: String? = nil) {
        self.partition = partition
        self.host = host
    }

    /// The SQL terms (each starting with ` AND `) on `entry e`, and their values.
    var condition: (sql: String, values: [DatabaseValue]) {
        var sql = ""
        var values: [DatabaseValue] = []
        if let partition {
            sql += " AND e.partition = ?"
            values.append(.text(partition))
        }
        if let host {
            sql += " AND e.host = ?"
            values.append(.text(host))
        }
        return (sql, values)
    }
}
