import CacheStore
import FoundationEssentials
import HTTPCore
import Sessions
import Transport
import WebCache

/// What a running command has: its parsed arguments, its outputs and the environment, and the
/// conversions of the options every command shares into a ``WebCache/Configuration``.
struct CommandContext: Sendable {
    var arguments: ParsedArguments
    var stdout: any TextOutput
    var stderr: any TextOutput
    var environment: [String: String]

    /// The store path: `--store`, else the default under `$XDG_CACHE_HOME`.
    var storePath: String {
        arguments.value("store") ?? WebCache.defaultStorePath(environment: environment)
    }

    /// A logger writing `webcache: level: message` lines to standard error, at the level asked for.
    func makeLogger() throws(UsageError) -> Logger {
        // --log-level says the level outright, whatever -v says.
        let level = try arguments.value("log-level", "level", Logger.Level.init(name:))
            ?? (arguments.flag("verbose") ? .debug : .warning)
        let stderr = self.stderr
        return Logger(level: level) { level, message in stderr.write("webcache: \(level): \(message)\n") }
    }

    /// The library configuration for the options given.
    func makeConfiguration() throws -> WebCache.Configuration {
        var configuration = WebCache.Configuration(environment: environment)
        configuration.storePath = storePath
        configuration.logger = try makeLogger()
        try applyNetworkOptions(to: &configuration.transportConfiguration)
        try applyIdentityOptions(to: &configuration)
        configuration.requestHeaders = try requestHeaders()
        return configuration
    }

    /// The fields `-H` and `-A` add to requests.
    func requestHeaders() throws(UsageError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in arguments.allValues("header") {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw UsageError("The value '\(line)' is invalid for '--header <name: value>'", command: arguments.spec)
            }
            let name = String(line[..<colon]).trimmingHTTPWhitespace()
            let value = String(line[line.index(after: colon)...]).trimmingHTTPWhitespace()
            // Refused before any request: every request would carry it, and fail on it.
            let shown = MessageText.excerpt(line, limit: 200)
            guard name.isHTTPToken else {
                throw UsageError("The value '\(shown)' is invalid for '--header <name: value>': the name "
                                 + "'\(MessageText.excerpt(name, limit: 200))' is not an HTTP token",
                                 command: arguments.spec)
            }
            guard !value.holdsLineBreakOrNUL else {
                throw UsageError("The value '\(shown)' is invalid for '--header <name: value>': the value holds a "
                                 + "line break or NUL", command: arguments.spec)
            }
            headers.append(name: name, value: value)
        }
        if let agent = arguments.value("user-agent") { headers["User-Agent"] = agent }
        return headers
    }

    /// Opens the library for a command that needs the network and the store, with the
    /// configuration `adjust` leaves, runs `body`, and closes it again whether `body` succeeds or throws.
    ///
    /// The signed-in user's partition is the one the credentials prove (``resolveIdentity(of:online:)``);
    /// `online` is `false` for commands that must not ask the instance (cache-only reads, an offline gateway).
    /// Online, a `--token-file` that cannot be read is a usage error before anything is asked or stored:
    /// every request that needs the session would fail on it.
    func withCache<T: Sendable>(
        online: Bool = true,
        adjusting adjust: (inout WebCache.Configuration) -> Void = { _ in },
        _ body: (WebCache) async throws -> T
    ) async throws -> T {
        var configuration = try makeConfiguration()
        if online, let file = arguments.value("token-file") { try checkInputFile(file, option: "token-file") }
        adjust(&configuration)
        let binding = try await resolveIdentity(of: &configuration, online: online)
        return try await withCache(configuration: configuration, binding: binding, body)
    }

    /// Opens the library with `configuration`, whose identity ``resolveIdentity(of:online:)`` has
    /// resolved, records `binding` in the store, runs `body`, and closes it again whether `body`
    /// succeeds or throws.
    func withCache<T: Sendable>(
        configuration: WebCache.Configuration, binding: (source: String, key: String)?,
        _ body: (WebCache) async throws -> T
    ) async throws -> T {
        if let field = configuration.credentialFieldWithoutInstance {
            throw UsageError("-H '\(field): …' needs --instance <url>: credentials given for every request are sent "
                             + "only to the instance", command: arguments.spec)
        }
        let cache = try WebCache(configuration: configuration)
        do {
            if let binding, !configuration.readOnly {
                try await cache.store.bindIdentity(source: binding.source, to: binding.key)
            }
            let result = try await body(cache)
            await cache.close()
            return result
        } catch {
            await cache.close()
            throw error
        }
    }

    private func applyNetworkOptions(to transport: inout CurlTransport.Configuration) throws(UsageError) {
        if let file = arguments.value("cacert") {
            try checkInputFile(file, option: "cacert")
            transport.caCertificateFile = file
        }
        transport.insecure = arguments.flag("insecure")
        transport.resolve = try validated(arguments.allValues("resolve"), option: "resolve", parts: 3)
        transport.connectTo = try validated(arguments.allValues("connect-to"), option: "connect-to", parts: 4)
        if let proxy = arguments.value("proxy") { transport.proxy = proxy }
        if let timeout = try arguments.value("connect-timeout", "duration", ValueParsers.interval) {
            transport.connectTimeout = timeout
        }
    }

    /// Refuses a file named by `--option` that does not exist, is a directory or may not be read,
    /// before any work starts (libcurl would find out only at the first TLS connection, a token
    /// provider at each request that needs the session).
    private func checkInputFile(_ path: String, option: String) throws(UsageError) {
        do throws(InputFile.Error) {
            try InputFile.checkReadable(path: path)
        } catch {
            throw UsageError("The value '\(path)' is invalid for '--\(option) <file>': the file \(error.reason)",
                             command: arguments.spec)
        }
    }

    /// Checks curl-style `HOST:PORT:…` values have the right number of parts and a port from 1 to 65535
    /// (`--connect-to` takes an empty one, for any port).
    private func validated(_ values: [String], option: String, parts: Int) throws(UsageError) -> [String] {
        for value in values {
            let fields = value.split(separator: ":", omittingEmptySubsequences: false)
            let port = fields.count > 1 ? fields[1] : ""
            let portIsValid = (port.isEmpty && option == "connect-to") || UInt16(port).map { $0 > 0 } == true
            guard fields.count >= parts, portIsValid else {
                throw UsageError("The value '\(MessageText.excerpt(value, limit: 200))' is invalid for '--\(option)'",
                                 command: arguments.spec)
            }
        }
        return values
    }

    private func applyIdentityOptions(to configuration: inout WebCache.Configuration) throws {
        configuration.instanceURL = try arguments.instanceURL()
        for pattern in arguments.allValues("login-path") {
            guard pattern.hasPrefix("/"), pattern.count > 1, !pattern.contains(where: \.isWhitespace) else {
                throw UsageError("The value '\(MessageText.excerpt(pattern, limit: 200))' is invalid for "
                                 + "'--login-path <pattern>': it is a path that starts with '/'",
                                 command: arguments.spec)
            }
            configuration.sessionPolicy.loginPathPatterns.append(pattern)
        }
        for host in arguments.allValues("login-host") {
            guard HTTPURLCheck.problem(withHost: host) == nil else {
                throw UsageError("The value '\(MessageText.excerpt(host, limit: 200))' is invalid for "
                                 + "'--login-host <host>': it is not a host name or IP address",
                                 command: arguments.spec)
            }
            configuration.sessionPolicy.loginHosts.insert(host.lowercased())
        }
        let sources = ["token-command", "token-file", "jwt-command"].filter { arguments.value($0) != nil }
        if sources.count > 1 {
            throw UsageError("Give only one of --token-command, --token-file and --jwt-command", command: arguments.spec)
        }
        if arguments.flag("keep-session") && sources.isEmpty {
            throw UsageError("--keep-session needs --token-command, --token-file or --jwt-command: a guest has "
                             + "no session to keep", command: arguments.spec)
        }
        if arguments.flag("guest") {
            guard sources.isEmpty else {
                throw UsageError("--guest cannot be combined with --\(sources[0])", command: arguments.spec)
            }
            return
        }
        guard let source = sources.first else { return }
        guard configuration.instanceURL != nil else {
            throw UsageError("--\(source) needs --instance <url>: the session is started on the instance",
                             command: arguments.spec)
        }
        configuration.persistsCookies = arguments.flag("keep-session")
        switch source {
        case "token-command":
            configuration.authorization = CommandTokenProvider(command: arguments.value(source)!)
        case "token-file":
            configuration.authorization = FileTokenProvider(fileURL: URL(fileURLWithPath: arguments.value(source)!))
        default:
            let endpointText = arguments.value("token-endpoint") ?? "oauth/token"
            let endpoint = try arguments.requestURL(endpointText, for: "--token-endpoint <url>")
            var client = JWTBearerProvider.ClientAuthentication.none
            if let clientID = arguments.value("client-id") {
                client = environment["WEBCACHE_CLIENT_SECRET"].map { .basic(clientID: clientID, clientSecret: $0) }
                    ?? .formFields(clientID: clientID, clientSecret: nil)
            }
            configuration.authorization = JWTBearerProvider(
                configuration: .init(tokenEndpoint: endpoint, clientAuthentication: client),
                assertionProvider: CommandTokenProvider(command: arguments.value(source)!),
                transport: try CurlTransport(configuration: configuration.transportConfiguration))
        }
    }
}
