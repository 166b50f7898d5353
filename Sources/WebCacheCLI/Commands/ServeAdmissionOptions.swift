import FoundationEssentials
import Gateway

/// `serve`'s options for who may use the gateway and how much (``GatewayServer/Admission``).
enum ServeAdmissionOptions {
    static let options: [OptionSpec] = [
        OptionSpec(names: ["--allow"], kind: .repeatedValue(name: "cidr"),
                   help: "Let clients from this address range in (repeatable); needed to bind beyond loopback."),
        OptionSpec(names: ["--proxy-secret-env"], kind: .value(name: "name"),
                   help: "The environment variable holding the proxy credential clients must send."),
        OptionSpec(names: ["--proxy-secret-file"], kind: .value(name: "file"),
                   help: "The file holding the proxy credential clients must send."),
        OptionSpec(names: ["--no-auth"], kind: .flag,
                   help: "Run beyond loopback without a proxy credential (the --allow ranges only)."),
        OptionSpec(names: ["--rate-limit"], kind: .value(name: "n"),
                   help: "Requests per second per client address, up to a million (bursts of twice as many); 429 "
                       + "beyond.",
                   defaultValue: "none on loopback, else 100"),
        OptionSpec(names: ["--head-timeout"], kind: .value(name: "duration"),
                   help: "Cut off a client that takes longer to send a request head (1ms to 1d; a plain number is "
                       + "seconds).",
                   defaultValue: "30s"),
        OptionSpec(names: ["--max-request-head"], kind: .value(name: "size"),
                   help: "The largest request head accepted (431 beyond); each connection's buffer is this and "
                       + "16 KiB for the response head (1KiB to 1MiB).",
                   defaultValue: "16KiB"),
    ]

    /// The highest `--rate-limit`: beyond it a limit would not be one, and twice it must be a count.
    private static let highestRate = 1_000_000.0

    /// The admission rules the options give.
    ///
    /// - Throws: ``UsageError`` naming a bad range, rate, timeout or head size, a secret variable that is unset
    ///   or empty, or a secret file that cannot be read or is empty.
    static func admission(_ context: CommandContext, bindAddress: String) throws -> GatewayServer.Admission {
        let arguments = context.arguments
        var admission = GatewayServer.Admission()
        for text in arguments.allValues("allow") {
            guard let range = AddressRange(text) else {
                throw UsageError("The value '\(text)' is invalid for '--allow <cidr>': it is not an IPv4 or IPv6 "
                                 + "address with an optional /bits", command: arguments.spec)
            }
            admission.allowedClients.append(range)
        }
        admission.allowsUnauthenticatedClients = arguments.flag("no-auth")
        admission.credential = try credential(context)
        if admission.credential != nil && admission.allowsUnauthenticatedClients {
            throw UsageError("--no-auth cannot be combined with a proxy secret", command: arguments.spec)
        }
        let beyondLoopback = !["127.0.0.1", "::1"].contains(bindAddress) && !bindAddress.hasPrefix("127.")
        if let rate = try arguments.value("rate-limit", "n", {
            Double($0).flatMap { $0 > 0 && $0 <= Self.highestRate ? $0 : nil }
        }) {
            admission.requestRate = (rate, max(1, Int(rate * 2)))
        } else if beyondLoopback {
            admission.requestRate = (100, 200)
        }
        if let timeout = try arguments.value("head-timeout", "duration", ValueParsers.interval) {
            admission.headTimeout = timeout
        }
        if let bytes = try arguments.value("max-request-head", "size", {
            ValueParsers.byteSize($0).flatMap { (1024...(1 << 20)).contains($0) ? Int($0) : nil }
        }) {
            admission.maximumHeaderBytes = bytes
        }
        return admission
    }

    private static func credential(_ context: CommandContext) throws -> ProxyCredential? {
        let arguments = context.arguments
        if let name = arguments.value("proxy-secret-env") {
            if arguments.value("proxy-secret-file") != nil {
                throw UsageError("Give only one of --proxy-secret-env and --proxy-secret-file", command: arguments.spec)
            }
            guard let credential = context.environment[name].flatMap(ProxyCredential.init(secret:)) else {
                throw UsageError("The value '\(name)' is invalid for '--proxy-secret-env <name>': the environment "
                                 + "variable is unset or empty", command: arguments.spec)
            }
            return credential
        }
        guard let path = arguments.value("proxy-secret-file") else { return nil }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw UsageError("The value '\(path)' is invalid for '--proxy-secret-file <file>': the file cannot be "
                             + "read as UTF-8 text", command: arguments.spec)
        }
        guard let credential = ProxyCredential(secret: text) else {
            throw UsageError("The value '\(path)' is invalid for '--proxy-secret-file <file>': the file is empty",
                             command: arguments.spec)
        }
        return credential
    }
}
