import CacheStore
import WebCache

/// A failure while running a command (not a usage error): printed as `Error: …` on standard error,
/// and the process exits with 1.
struct CLIError: Error, Sendable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }

    /// The text of an underlying error: its own description, which webcache's errors write as sentences.
    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }

    /// The first store error with `code` among `error` and its causes.
    static func storeError(in error: any Error, code: CacheStore.Error.Code) -> CacheStore.Error? {
        var next: (any Error)? = error
        while let current = next {
            if let store = current as? CacheStore.Error, store.code == code { return store }
            next = (current as? CacheStore.Error)?.cause ?? (current as? WebCacheError)?.cause
        }
        return nil
    }
}
