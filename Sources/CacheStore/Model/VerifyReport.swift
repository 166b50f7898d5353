/// The result of ``CacheStore/verify()``: every problem found, empty when the store is sound.
public struct VerifyReport: Sendable, Hashable {
    /// One problem found.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// What kind of check failed.
        public enum Kind: String, Sendable, Hashable {
            case integrity, bodyHash, bodySize, bodyChunks, referenceCount, totals, missingBody
        }

        /// What kind of check failed.
        public var kind: Kind
        /// A sentence naming the object.
        public var message: String

        public var description: String { "\(kind.rawValue): \(message)" }
    }

    /// The problems found.
    public var problems: [Problem]
    /// Number of bodies whose chunks were re-hashed.
    public var checkedBodies: Int
    /// Number of entries checked.
    public var checkedEntries: Int

    /// Whether no problem was found.
    public var isSound: Bool { problems.isEmpty }
}
