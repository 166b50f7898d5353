extension CacheStore {
    /// What a save for a signed-in user's partition asks inside its transaction, after every change
    /// committed before it by any process that shares the store: that the partition's user has not
    /// signed out since the work began (``signOutCount(partition:)`` still reads `signOutCount`), and
    /// that `holds`, when given, still holds (a sign-out of this process's own session).
    public struct SaveCondition: Sendable {
        /// The partition the work saves into.
        public var partition: String
        /// ``CacheStore/signOutCount(partition:)`` as it was when the work's session began.
        public var signOutCount: Int64
        /// Asked too, when given.
        public var holds: (@Sendable () -> Bool)?

        /// Creates a condition.
        public init(partition: String, signOutCount: Int64, holds: (@Sendable () -> Bool)? = nil) {
            self.partition = partition
            self.signOutCount = signOutCount
            self.holds = holds
        }
    }

    /// How many times the user of `partition` signed out (``signOut(partition:)``), in any process
    /// that shares the store; 0 in a store of a version before 12 opened for reading only.
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func signOutCount(partition: String) throws -> Int64 {
        guard columns.hasSignOuts else { return 0 }
        return try read("read the sign-outs of the partition '\(partition)'") { connection in
            try Self.signOutCount(partition: partition, connection)
        }
    }

    /// Signs the user of `partition` out of the store: deletes the partition's entries and page records
    /// (``removeAll(partition:)``) and counts the sign-out, in one transaction, so that work begun
    /// before by any process saves nothing into the partition after it (``SaveCondition``).
    /// - Returns: What was removed, and the partition's sign-out count after it.
    /// - Throws: ``CacheStore/Error``.
    public func signOut(partition: String) throws -> (removed: PruneResult, signOutCount: Int64) {
        try write("sign out of the partition '\(partition)'", touchedBy: { .urls($0.removed.urls) }) { connection in
            let removed = try Self.removeAll(partition: partition, connection)
            try connection.run(Self.signOutQuery, [.text(partition)])
            return (removed, try Self.signOutCount(partition: partition, connection))
        }
    }

    /// Throws ``Error/Code/withdrawn`` when `condition` is given and no longer holds, saying that
    /// `what` ("The entry for …") was not saved; for the saving transaction on `connection`.
    static func requireCondition(_ condition: SaveCondition?, refusing what: String, _ connection: Connection) throws {
        guard let condition else { return }
        let signedOut = try signOutCount(partition: condition.partition, connection) != condition.signOutCount
        if signedOut || condition.holds?() == false {
            throw Error(code: .withdrawn,
                        message: "\(what) was not saved: the work it came from was withdrawn (its "
                            + "user signed out) before it could be.")
        }
    }

    private static func signOutCount(partition: String, _ connection: Connection) throws -> Int64 {
        try connection.int64(signOutCountQuery, [.text(partition)]) ?? 0
    }

    /// A partition's sign-out count (one primary-key lookup).
    private static let signOutCountQuery = SQLQuery(
        "SELECT count FROM partition_sign_out WHERE partition = ?")

    /// Counts a sign-out of a partition.
    private static let signOutQuery = SQLQuery("""
        INSERT INTO partition_sign_out (partition, count) VALUES (?, 1)
        ON CONFLICT (partition) DO UPDATE SET count = count + 1
        """)
}
