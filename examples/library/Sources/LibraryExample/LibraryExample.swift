import Foundation
import Sessions
import WebCache

/// Preloads two pages of an instance for a signed-in user, reads one back from the store, then
/// online-or-stored, signs out and closes: the README's example, with the instance URL and the
/// token command taken from the command line.
///
/// Usage: `LibraryExample INSTANCE-URL TOKEN-COMMAND` (the store goes under `$XDG_CACHE_HOME/webcache`).
@main
struct LibraryExample {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: LibraryExample INSTANCE-URL TOKEN-COMMAND\n".utf8))
            exit(64)
        }
        let instance = arguments[1]
        let tokenCommand = arguments[2]
        // README: begin
        var configuration = WebCache.Configuration()          // store under $XDG_CACHE_HOME/webcache
        configuration.instanceURL = URL(string: instance)
        configuration.authorization = CommandTokenProvider(command: tokenCommand)   // or nil for a guest
        configuration.userID = "alice@example.com"            // names the user's private partition
        configuration.requestHeaders = ["Accept-Language": "fr"]   // on every request, seen by the caching rules
        let cache = try WebCache(configuration: configuration)

        let report = await cache.preload(["index.html", "about.html"]) { event in print(event) }
        let page = try await cache.data(for: WebRequest("index.html"))   // .hit, or .revalidated (no-cache pages)
        let offline = try await cache.data(for: WebRequest("index.html"),   // the network, else the store
                                           policy: .offlineFallback(maxStale: 7 * 86_400))
        try await cache.logout()
        await cache.close()
        // README: end
        print("report: \(report.pages) pages, \(report.completed) stored, \(report.failures.count) failed, "
            + "interrupted: \(report.interrupted)")
        print("page: \(page.source) \(page.status) \(page.body.count) bytes")
        print("offline: \(offline.source) \(offline.status) \(offline.body.count) bytes")
    }
}
