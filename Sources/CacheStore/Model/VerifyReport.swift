/// The result of ``CacheStore/verify()``: every problem found, empty when the store is sound.
public struct VerifyReport: Sendable, Hashable {
    /// One problem found.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// What kind of check failed.
        public enum Kind: String, Sendable, Hashable {
            case integrity, bodyHash, bodySize, bodyChunks, referenceCount, totals, missingBody
            /// Chunks that do not match their CRC-32 (of their place and bytes), or a body whose chunks carry
            /// one only in part.
            case chunkChecksum
            /// A part of the file that SQLite reports damaged, so that what it holds was not checked.
            case unreadable
        }

        /// What kind of check failed.
        public var kind: Kind
        /// A sentence naming the object: the URLs of the entries involved, when they are known.
        public var message: String
        /// The URLs of the entries the problem affects, when they could be read.
        public var urls: [String]

        public var description: String { "\(kind.rawValue): \(message)" }
    }

    /// The problems found.
    public var problems: [Problem]
    /// Number of bodies whose chunks were re-hashed (not those that could not be read).
    public var checkedBodies: Int
    /// Number of entries checked (not those that could not be read).
    public var checkedEntries: Int

    /// Whether no problem was found.
    public var isSound: Bool { problems.isEmpty }
}
