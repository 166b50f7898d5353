import FoundationEssentials

/// A value bound to, or read from, an SQLite statement (GRDB `DatabaseValue.Storage`).
enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// A date as seconds since 1970, the representation of every instant in the store.
    static func date(_ date: Date) -> DatabaseValue { .real(date.timeIntervalSince1970) }

    /// An optional date, `NULL` when absent.
    static func date(_ date: Date?) -> DatabaseValue { date.map { .real($0.timeIntervalSince1970) } ?? .null }

    /// An optional string, `NULL` when absent.
    static func text(_ text: String?) -> DatabaseValue { text.map { .text($0) } ?? .null }

    /// An integer from any `BinaryInteger`.
    static func int<I: BinaryInteger>(_ value: I) -> DatabaseValue { .integer(Int64(value)) }

    /// A boolean as 0 or 1.
    static func bool(_ value: Bool) -> DatabaseValue { .integer(value ? 1 : 0) }
}
