import HTTPCore

extension CacheStore {
    /// An error of the cache store: what went wrong (``code``), a sentence naming the store file or
    /// the object involved (``message``), and the underlying error, such as an ``SQLiteError``.
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        /// The kind of failure; new codes may be added.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private let name: String
            private init(_ name: String) { self.name = name }
            public var description: String { name }

            /// The file is not an SQLite database (empty, text, or another format).
            public static let notADatabase = Code("notADatabase")
            /// The file is an SQLite database, but not a webcache store.
            public static let notAStore = Code("notAStore")
            /// The store was written by a newer version of this code.
            public static let newerVersion = Code("newerVersion")
            /// The store is damaged (truncated, or failing SQLite's checks).
            public static let corrupt = Code("corrupt")
            /// The file could not be created or opened.
            public static let fileSystem = Code("fileSystem")
            /// An SQLite operation failed; ``Error/cause`` holds the ``SQLiteError``.
            public static let database = Code("database")
            /// An entry could not be stored as given.
            public static let invalidEntry = Code("invalidEntry")
            /// A body or its staged chunks are gone (removed by pruning, or collected as abandoned).
            public static let bodyMissing = Code("bodyMissing")
            /// A stored body's bytes no longer match their checksums (a chunk's CRC-32, or the body's
            /// SHA-256) or add up to its recorded size: the store file was changed or damaged where
            /// the body is kept.
            public static let damagedBody = Code("damagedBody")
            /// A page named to act on has no recorded edges (``PruneCriteria/page``).
            public static let unknownPage = Code("unknownPage")
            /// The disk holding the store has no space left; what was stored before is intact.
            public static let diskFull = Code("diskFull")
            /// The store cannot be written: its file or folder is read-only, or it was opened for reading
            /// only; or, opened for reading only, it cannot be read without writing.
            public static let readOnly = Code("readOnly")
            /// The store was closed.
            public static let closed = Code("closed")
            /// A save's condition (`onlyIf`) no longer held when its transaction ran: the work it came
            /// from was withdrawn (its user signed out), and nothing was saved.
            public static let withdrawn = Code("withdrawn")
        }

        /// The kind of failure.
        public var code: Code
        /// A complete sentence that names the store file or the object involved.
        public var message: String
        /// The underlying error, if any.
        public var cause: (any Swift.Error)?

        /// Creates an error.
        public init(code: Code, message: String, cause: (any Swift.Error)? = nil) {
            self.code = code
            self.message = message
            self.cause = cause
        }

        public var description: String {
            MessageText.withCause(message, cause)
        }

        /// The sentence that ends messages about a damaged store at `path`: how to see the damage,
        /// and how to keep what is still sound, with webcache's commands.
        public static func recoveryAdvice(forStoreAt path: String) -> String {
            "'webcache verify --store \(path)' lists the damage, and 'webcache salvage \(path) NEW' copies what "
                + "is still sound into a new store."
        }
    }
}
