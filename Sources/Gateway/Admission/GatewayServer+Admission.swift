import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GatewayServer {
    /// Who may use a gateway and how much: the rules that keep one listening beyond loopback from
    /// being an open proxy, and keep slow or busy clients from taking it from the others.
    ///
    /// A gateway bound to a loopback address needs none of it. One bound to any other address
    /// refuses to start unless ``allowedClients`` names who may connect, and unless it has a
    /// ``credential`` or ``allowsUnauthenticatedClients`` says it needs none. Clients from other
    /// addresses are closed at once; clients that are not loopback may not have the gateway forward
    /// requests to loopback, private or link-local addresses (403), checked again at connect time.
    ///
    /// ```swift
    /// var configuration = GatewayServer.Configuration()
    /// configuration.bindAddress = "0.0.0.0"
    /// configuration.admission.allowedClients = [AddressRange("192.168.1.0/24")!]
    /// configuration.admission.credential = ProxyCredential(secret: secret)
    /// ```
    public struct Admission: Sendable {
        /// The client addresses let in besides loopback (`--allow CIDR`).
        public var allowedClients: [AddressRange] = []
        /// The secret every client must show in `Proxy-Authorization` (407 otherwise).
        public var credential: ProxyCredential?
        /// Lets a gateway beyond loopback run without a credential (`--no-auth`).
        public var allowsUnauthenticatedClients = false
        /// The largest request head accepted, in bytes (its request line and field lines, each with
        /// its line end); a larger one is answered 431, or cut off once it outgrows the connection's
        /// buffer. That buffer is this limit and 16 KiB for the response's head: a response head
        /// that does not fit beside the request's is answered 502.
        public var maximumHeaderBytes = 16 * 1024
        /// The most connections one client address may hold open at once.
        public var connectionsPerClient = 32
        /// Requests per second each client address may send on average, and how many at once;
        /// `nil` for no limit. Requests over it are answered 429.
        public var requestRate: (perSecond: Double, burst: Int)?
        /// How long a client has to send a whole request head, from when its connection opens or its
        /// previous response ends; a client still sending it then (slowly, a byte at a time) is cut off.
        public var headTimeout: Duration = .seconds(30)

        /// No limits beyond the defaults, loopback clients only.
        public init() {}
    }

    /// Refuses admission rules that leave a gateway beyond loopback open to anyone.
    static func validate(_ admission: Admission, bindAddress: String) throws(GatewayError) {
        guard admission.maximumHeaderBytes >= 1024, admission.connectionsPerClient > 0,
            admission.headTimeout > .zero, admission.requestRate.map({ $0.perSecond > 0 && $0.burst > 0 }) ?? true
        else {
            throw GatewayError(.invalidConfiguration,
                               "The header limit must be at least 1024 bytes, and the per-client connection limit, "
                                   + "the request rate and the head timeout positive.")
        }
        guard let bytes = NetworkAddress.bytes(numeric: bindAddress), !AddressRange.isLoopback(bytes) else { return }
        guard !admission.allowedClients.isEmpty else {
            throw GatewayError(.invalidConfiguration,
                               "The gateway would listen on \(bindAddress), beyond loopback, without naming the clients "
                                   + "it lets in: give the address ranges (--allow CIDR), or bind to 127.0.0.1.")
        }
        guard admission.credential != nil || admission.allowsUnauthenticatedClients else {
            throw GatewayError(.invalidConfiguration,
                               "The gateway would listen on \(bindAddress), beyond loopback, without a proxy credential: "
                                   + "give one (--proxy-secret-env NAME or --proxy-secret-file FILE), or say that none "
                                   + "is needed (--no-auth).")
        }
    }

    /// Whether a connection from `address` (4 or 16 bytes) is accepted: loopback, or an allowed range.
    func admitsConnection(from address: [UInt8]) -> Bool {
        AddressRange.isLoopback(address) || configuration.admission.allowedClients.contains { $0.contains(address) }
    }

    /// Why `request` from `client` is refused before anything is loaded, if it is: the client's rate,
    /// its credential, or a forward request from a client that is not loopback to a private address.
    func admissionRefusal(of request: ConnectionRequest, from client: [UInt8]) -> AdmissionRefusal? {
        let admission = configuration.admission
        if let rateLimiter, case let clientText = Self.text(of: client), !rateLimiter.admits(clientText) {
            return AdmissionRefusal(status: 429, message: "Too many requests from \(clientText); slow down and try again.",
                                    headers: ["Retry-After": "1"])
        }
        if request.headBytes > admission.maximumHeaderBytes {
            return AdmissionRefusal(
                status: 431,
                message: "The request head for \(request.target) is \(request.headBytes) bytes, more than the gateway "
                    + "accepts (\(admission.maximumHeaderBytes) bytes).")
        }
        if let credential = admission.credential, !credential.isShown(in: request.headers) {
            return AdmissionRefusal(
                status: 407,
                message: "The gateway needs its proxy credential in Proxy-Authorization (Basic, with it as the password).",
                headers: ["Proxy-Authenticate": ProxyCredential.challenge])
        }
        if !AddressRange.isLoopback(client), !request.target.hasPrefix("/"),
            let host = URL(string: request.target)?.host, let address = privateHosts.firstPrivateAddress(ofHost: host)
        {
            return AdmissionRefusal(
                status: 403,
                message: "A client on another machine may not reach \(host) (\(address)) through the gateway: it is a "
                    + "loopback, private or link-local address.")
        }
        return nil
    }

    /// The bytes of `request`'s head as an HTTP/1.1 client sends it: `METHOD target HTTP/1.1`, then
    /// `name: value` for each field, each line ended by CR LF, and the empty line.
    static func headBytes(of request: ConnectionRequest) -> Int {
        request.method.rawValue.utf8.count + 1 + request.target.utf8.count + 1 + 8 + 2 + 2
            + ConnectionBuffer.fieldLineBytes(request.headers)
    }

    /// `a.b.c.d`, or the IPv6 text, of 4 or 16 address bytes.
    static func text(of address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = address.count == 4 ? AF_INET : AF_INET6
        let written = address.withUnsafeBytes { bytes in
            inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        return written ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"

    }
}

/// The gateway's own answer to a request it does not let through.
struct AdmissionRefusal {
    var status: Int
    /// A sentence for the client.
    var message: String
    var headers: HTTPHeaders = [:]
}
