import FoundationEssentials
import Gateway
import HTTPCore
import WebCache
#if canImport(Glibc)
import Glibc
#endif

/// `webcache serve`: a local HTTP gateway to the store, for browsers and any HTTP client. The
/// listening URL is the first line on standard output, then one access-log line per request,
/// written in batches (``AccessLogWriter``); SIGINT or SIGTERM stop it cleanly (exit 0, every
/// access-log line written), and a second one at once.
enum ServeCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        var configuration = try gatewayConfiguration(context)
        // Offline, a store that is not there has nothing to serve: a mistyped path must not make an empty one.
        if configuration.offline { try context.requireExistingStore() }
        let delay = try context.arguments.value("log-flush", "duration", ValueParsers.milliseconds)
        let accessLog = AccessLogWriter(output: context.stdout, delay: delay ?? .milliseconds(100))
        configuration.accessLog = { entry in accessLog.append(entry.line) }
        let stdout = context.stdout
        let signals = TerminationSignals()
        defer { signals.stop() }
        do {
            // Offline, the signed-in user's partition is the one the store recorded for these credentials.
            // The gateway keeps fresh answers in a memory of its own (`--memory-cache`); the loader keeps none.
            let online = !configuration.offline
            try await context.withCache(online: online, adjusting: { $0.memoryCacheSize = 0 }) { cache in
                // Every connection is closed once serve returns: no line comes after the last flush.
                defer { accessLog.finish() }
                try await GatewayServer.serve(cache: cache, configuration: configuration) { gateway in
                    stdout.write("\(gateway.url.absoluteString)\n")
                    let signal = await withDiscardingTaskGroup { group in
                        group.addTask { await accessLog.run() }
                        defer { group.cancelAll() }
                        return await signals.received() ?? SIGTERM
                    }
                    context.stderr.write("webcache: stopping on signal \(signal)\n")
                }
            }
        } catch let error as GatewayError where error.code == .invalidConfiguration {
            throw UsageError(error.message, command: context.arguments.spec)
        }
        return ExitCode.success
    }

    /// The gateway settings for the options given.
    static func gatewayConfiguration(_ context: CommandContext) throws -> GatewayServer.Configuration {
        let arguments = context.arguments
        var configuration = GatewayServer.Configuration()
        configuration.port = try arguments.value("port", "port", { UInt16($0) }) ?? 8080
        configuration.bindAddress = arguments.value("bind") ?? "127.0.0.1"
        if let upstream = arguments.value("upstream") {
            configuration.upstream = try arguments.url(upstream, for: "--upstream <url>")
        }
        configuration.admission = try ServeAdmissionOptions.admission(context, bindAddress: configuration.bindAddress)
        configuration.offline = arguments.flag("offline")
        configuration.maxStale = try arguments.value("max-stale", "duration", ValueParsers.duration)
        if let interval = try arguments.value("flush-hits", "duration", ValueParsers.interval) {
            configuration.hitFlushInterval = interval
        }
        if let size = try arguments.value("memory-cache", "size", ValueParsers.byteSize) {
            configuration.memoryCacheSize = Int(clamping: size)
        }
        configuration.logger = try context.makeLogger()
        return configuration
    }
}
