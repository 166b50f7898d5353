import FoundationEssentials
import HTTPCore

/// Reads claims from a JWT's payload (RFC 7519 §7.2, steps 1 to 7), without checking its signature.
///
/// webcache does not verify the JWTs it exchanges (the token endpoint does); it reads the `sub`
/// claim of the user's own assertion only to name the partition of the identity that the exchange
/// proves, which the instance checks when the JWT is exchanged.
public enum JWTClaims {
    /// The `sub` claim of `jwt` (a compact JWS: three base64url parts separated by dots), or `nil`
    /// when it is not a JWT, its payload is not a JSON object, or it has no non-empty string `sub`.
    public static func subject(of jwt: String) -> String? {
        let parts = jwt.trimmingWhitespaceAndNewlines().split(
            separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = base64URLDecoded(String(parts[1])),
            let subject = (try? JSONValue.parse(payload))?["sub"]?.stringValue, !subject.isEmpty
        else { return nil }
        return subject
    }

    /// Decodes base64url without padding (RFC 7515 §2); `nil` for other characters.
    static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacing("-", with: "+").replacing("_", with: "/")
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
