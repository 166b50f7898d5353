import CacheStore
import FoundationEssentials
import HTTPCore
import WebCache
#if canImport(Glibc)
import Glibc
#endif

/// `webcache get URL`: loads one URL through the store; the body goes to standard output (or a
/// file), how it was served goes to standard error. With the cache-only policy the store must exist,
/// and is opened for reading only; the other policies may store what they fetch, so a store that cannot be
/// written is refused before any request. SIGINT or SIGTERM stop it with the token command it waits for.
enum GetCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        try await TerminationSignals.exitCode { try await get(context) }
    }

    private static func get(_ context: CommandContext) async throws -> Int32 {
        let arguments = context.arguments
        let url = try arguments.requestURL(arguments.positionals[0], for: "<url>")
        let policy = try cachePolicy(arguments)
        // `-H` and `-A` belong to the one request asked for, and follow it only as far as its origin;
        // credentials among them go to the instance only, as the fields of every other command do.
        let given = try context.requestHeaders()
        let isCredential = { (field: HTTPField) in
            HTTPHeaders.credentialNames.contains { field.name.caseInsensitiveEquals($0) }
        }
        let headers = HTTPHeaders(given.filter { !isCredential($0) })
        let credentials = HTTPHeaders(given.filter(isCredential))
        let cacheOnly = policy == .returnCacheDataDontLoad
        // Nothing can be read from a store that is not there, and cache-only would only create it empty.
        if cacheOnly { try context.requireExistingStore() }
        do {
            let adjust = { (configuration: inout WebCache.Configuration) in
                configuration.requestHeaders = credentials
                configuration.readOnly = cacheOnly
            }
            return try await context.withCache(online: !cacheOnly, adjusting: adjust) { cache in
                try await load(url.absoluteString, headers: headers, policy: policy, cache: cache, context: context)
            }
        } catch where !cacheOnly && CLIError.storeError(in: error, code: .readOnly) != nil {
            throw CLIError("\(CLIError.describe(error)) Only --policy cache-only reads it, as it stores nothing.")
        }
    }

    private static func load(
        _ url: String, headers: HTTPHeaders, policy: CachePolicy, cache: WebCache, context: CommandContext
    ) async throws -> Int32 {
        let arguments = context.arguments
        let response = try await cache.load(WebRequest(url, headers: headers), policy: policy)

        let output = try arguments.value("output").flatMap(openOutput)
        if arguments.flag("include") {
            // As curl -i prints it, where the body goes: the protocol version the response came over
            // (HTTP/1.1 for one from the store), the status code and its reason phrase, each line
            // ended by CR LF as on the wire.
            let reason = HTTPStatus.reasonPhrase(response.status).map { " \($0)" } ?? ""
            var head = "\(response.httpVersion ?? "HTTP/1.1") \(response.status)\(reason)\r\n"
            for field in response.headers.redacted() {
                head += "\(field.name): \(field.value)\r\n"
            }
            head += "\r\n"
            if let output { try output.write(contentsOf: Data(head.utf8)) } else { context.stdout.write(head) }
        }
        var bytes = 0
        for try await chunk in response.body {
            bytes += chunk.count
            if let output {
                try output.write(contentsOf: chunk)
            } else {
                context.stdout.write(data: chunk)
            }
        }
        try output?.close()
        let age = response.age > 0 ? ", age \(Int(response.age))s" : ""
        let redirects = response.redirects.isEmpty ? "" : ", after \(response.redirects.count) redirect(s)"
        context.stderr.write("webcache: \(response.source) \(response.status) \(response.url.redactedForMessages) (\(bytes) bytes\(age)\(redirects))\n")
        // A stale response served while it is revalidated (stale-while-revalidate): the command
        // ends once the revalidation has, so that the next one finds the entry fresh.
        await cache.finishRevalidations()
        return response.status >= 400 ? ExitCode.failure : ExitCode.success
    }

    /// The file `path` names, opened in place for writing and emptied (made if missing), so that a
    /// device or a pipe, `/dev/null` say, is written to rather than replaced by a new file; `nil`
    /// for `-`, standard output.
    private static func openOutput(_ path: String) throws -> OpenFile? {
        if path == "-" { return nil }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw CLIError("Cannot write the output file '\(path)': \(String(cString: strerror(errno))).")
        }
        return OpenFile(fileDescriptor: descriptor)
    }

    private static func cachePolicy(_ arguments: ParsedArguments) throws(UsageError) -> CachePolicy {
        let maxStale = try arguments.value("max-stale", "duration", ValueParsers.duration)
        // Only the offline policy serves stale responses on a limit; elsewhere the option would do nothing.
        if maxStale != nil, arguments.value("policy") != "offline" {
            throw UsageError("--max-stale <duration> limits the offline policy; give it with --policy offline",
                             command: arguments.spec)
        }
        switch arguments.value("policy") ?? "default" {
        case "default": return .useProtocolCachePolicy
        case "reload": return .reloadIgnoringCacheData
        case "cache-else-load": return .returnCacheDataElseLoad
        case "cache-only": return .returnCacheDataDontLoad
        case "offline": return .offlineFallback(maxStale: maxStale ?? .infinity)
        case let other:
            throw UsageError(
                "The value '\(other)' is invalid for '--policy <policy>': use default, reload, cache-else-load, cache-only or offline",
                command: arguments.spec)
        }
    }
}
