import Synchronization

/// A query made once and run often, such as a hit's: a connection finds its prepared statement by
/// the number the query got when it was made, instead of hashing and comparing its text, which for
/// a query of several hundred characters cost a hit more than binding its values.
struct SQLQuery: Sendable {
    /// The query's SQL text.
    let sql: String
    /// This query's number, given to no other in the process.
    let number: Int

    private static let made = Atomic<Int>(0)

    init(_ sql: String) {
        self.sql = sql
        number = Self.made.add(1, ordering: .relaxed).newValue
    }
}
