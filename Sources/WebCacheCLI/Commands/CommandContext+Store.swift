import CacheStore
import FoundationEssentials
import HTTPCore

/// Store access for the commands that only look at the store or change it (inspect, prune, pin,
/// verify): they never create a store, and they always close the one they opened. Those that only
/// look open it for reading only, so that they work on a store they cannot write.
extension CommandContext {
    /// Whether the store file exists.
    var storeExists: Bool {
        FileManager.default.fileExists(atPath: storePath)
    }

    /// Opens the existing store (for reading only when `readOnly`), runs `body`, and closes the store,
    /// also when `body` throws.
    ///
    /// - Throws: ``UsageError`` for a bad `--log-level`; ``CLIError`` naming the path when there is no
    ///   store there or it cannot be opened (a store that cannot be written, unless `readOnly`); what
    ///   `body` throws.
    func withExistingStore<T: Sendable>(
        readOnly: Bool = false, _ body: (CacheStore) async throws -> T
    ) async throws -> T {
        _ = try makeLogger()  // The store logs nothing, but a bad --log-level is still a usage error.
        try requireExistingStore()
        var configuration = CacheStore.Configuration()
        configuration.readOnly = readOnly
        let store: CacheStore
        do {
            store = try CacheStore(path: storePath, configuration: configuration)
        } catch {
            throw CLIError("The store at '\(storePath)' cannot be opened: \(CLIError.describe(error))")
        }
        return try await store.closing(after: body)
    }

    /// - Throws: ``CLIError`` naming the path when there is no store there.
    func requireExistingStore() throws {
        guard storeExists else {
            throw CLIError("There is no store at '\(storePath)'; give the path of one with --store.")
        }
    }

    /// The forms under which `text` may be stored: as given, and as its cache key (lower-case scheme
    /// and host, no default port, no fragment, `/` for an empty path).
    static func storedForms(of text: String) -> [String] {
        InternationalNames.prepare(forURL: text)
        guard let url = URL(string: text), url.isHTTP else { return [text] }
        let key = url.cacheKey.absoluteString
        return key == text ? [text] : [text, key]
    }
}
