import FoundationEssentials
import HTTPCore

/// Reads the bearer token from a file, such as one a sidecar process keeps up to date.
///
/// The file's content, with surrounding whitespace removed, is the token. It is read once and reused
/// until a forced refresh reads it again (concurrent callers share one read). It is read with plain
/// reads, so a pipe or process substitution (`<(…)`) works too, for the first read.
public struct FileTokenProvider: AuthorizationProviding {
    /// The token file.
    public let fileURL: URL
    private let cache = TokenCache()

    /// Creates a provider that reads `fileURL`.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The file's content as a bearer token; the cached one unless `forceRefresh` is set.
    ///
    /// - Throws: ``AuthorizationError`` with code `fileUnreadable` or `fileEmpty`, naming the file.
    public func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        let fileURL = fileURL
        return try await cache.token(forceRefresh: forceRefresh) { _ in
            let data: Data
            do throws(InputFile.Error) {
                data = try InputFile.read(path: fileURL.path)
            } catch {
                throw AuthorizationError(code: .fileUnreadable, message: error.sentence(calling: "token file"))
            }
            let token = String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines()
            guard !token.isEmpty else {
                throw AuthorizationError(code: .fileEmpty, message: "The token file '\(fileURL.path)' is empty.")
            }
            if let problem = AuthorizationToken.problem(with: token) {
                throw AuthorizationError(
                    code: .fileEmpty, message: "The token file '\(fileURL.path)' holds no token: \(problem).")
            }
            return AuthorizationToken(value: token)
        }
    }

    /// Forgets the token read last.
    public func removeCachedToken() async {
        await cache.clear()
    }
}
