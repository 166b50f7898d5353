import FoundationEssentials

extension CacheStore {
    /// Limits and tuning of a store.
    public struct Configuration: Sendable {
        /// The most body bytes (distinct bodies, ``StoreTotals/bodyBytes``) to keep; after each save
        /// that passes it, least recently used unpinned entries are evicted. `nil`: no limit.
        public var byteLimit: Int64?
        /// Number of reader connections.
        public var readerCount: Int
        /// How long one SQLite call waits for a lock before reporting `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32
        /// How long, in seconds, a write keeps retrying after `SQLITE_BUSY` before it fails.
        public var busyRetryLimit: Double
        /// How many entries with unwritten hits make a lookup flush them.
        public var accessFlushThreshold: Int
        /// Staging older than this many seconds is collected on open, even if its process still exists.
        public var stagingMaxAge: Double
        /// The clock for `stored_at`, `last_access` and staging times.
        public var clock: @Sendable () -> Date
        /// Opens an existing store for reading only: nothing is ever written to it or created beside it
        /// but what SQLite needs to read it (see ``CacheStore/init(path:configuration:)``), hits are not
        /// recorded, and every write throws ``CacheStore/Error/Code/readOnly``. Works on a store whose
        /// file or folder cannot be written.
        public var readOnly: Bool

        /// Creates the default configuration: no byte limit, 4 readers, 5 s busy timeout, 60 s retry limit,
        /// hits flushed every 512 entries, staging collected after one day, opened for writing.
        public init() {
            byteLimit = nil
            readerCount = 4
            busyTimeoutMilliseconds = 5_000
            busyRetryLimit = 60
            accessFlushThreshold = 512
            stagingMaxAge = 86_400
            clock = { Date() }
            readOnly = false
        }
    }
}
