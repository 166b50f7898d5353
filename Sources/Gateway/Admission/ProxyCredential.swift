import FoundationEssentials
import HTTPCore

/// The secret a client must show in `Proxy-Authorization` (RFC 9110 §11.7.2) to use a gateway that
/// listens beyond loopback: `Basic` with any user name and the secret as password (what browsers
/// send for a proxy), or `Bearer <secret>`.
public struct ProxyCredential: Sendable {
    private let secret: [UInt8]

    /// A credential with `secret`, which must not be empty.
    public init?(secret: String) {
        let trimmed = secret.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { return nil }
        self.secret = Array(trimmed.utf8)
    }

    /// The value of `Proxy-Authenticate` sent with a 407.
    static let challenge = #"Basic realm="webcache gateway", charset="UTF-8""#

    /// Whether `headers` carry the secret in `Proxy-Authorization`.
    func isShown(in headers: HTTPHeaders) -> Bool {
        guard let value = headers["Proxy-Authorization"]?.trimmingHTTPWhitespace(),
            let space = value.firstIndex(of: " ")
        else { return false }
        let scheme = value[..<space].lowercased()
        let parameter = value[value.index(after: space)...].trimmingHTTPWhitespace()
        switch scheme {
        case "bearer":
            return matches(Array(parameter.utf8))
        case "basic":
            guard let decoded = Data(base64Encoded: parameter), let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
            else { return false }
            return matches(Array(decoded[decoded.index(after: colon)...]))
        default:
            return false
        }
    }

    /// Compares in time that depends on the lengths only, so that timing does not reveal a prefix.
    private func matches(_ candidate: [UInt8]) -> Bool {
        var difference = UInt8(candidate.count == secret.count ? 0 : 1)
        for index in 0..<secret.count {
            difference |= secret[index] ^ (index < candidate.count ? candidate[index] : 0)
        }
        return difference == 0
    }
}
