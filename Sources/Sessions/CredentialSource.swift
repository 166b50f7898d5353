import FoundationEssentials
import HTTPCore

/// Where a signed-in user's credentials come from: the thing a caller must hold to read the user's
/// private partition when the instance cannot be asked who the user is (offline).
///
/// A source is named by a digest of how the credentials are obtained (the token command's text, the
/// token file's path, the JWT command's text with the OAuth client id), never of a token: tokens
/// change at every refresh while the source stays, and a digest of a token would put something
/// derived from a secret in the store.
///
/// ```swift
/// let source = CredentialSource.tokenCommand("pass show instance/alice")
/// source.digest(instance: URL(string: "https://instance.example.com/")!)  // "3f9c…" (64 hex digits)
/// ```
public enum CredentialSource: Sendable, Hashable {
    /// A command that prints a bearer token (`--token-command`).
    case tokenCommand(String)
    /// A file that holds a bearer token (`--token-file`), by its absolute path.
    case tokenFile(path: String)
    /// A command that prints a JWT to exchange (`--jwt-command`), with the OAuth client id it is
    /// exchanged for, if any.
    case jwtCommand(String, clientID: String?)

    /// The SHA-256, in lowercase hex, of the source's kind, its text and the instance's origin.
    ///
    /// The instance is part of it, so that one token command used for two instances gives two names.
    public func digest(instance: URL) -> String {
        let fields: [String] = switch self {
        case .tokenCommand(let command): ["token-command", command]
        case .tokenFile(let path): ["token-file", path]
        case .jwtCommand(let command, let clientID): ["jwt-command", command, clientID ?? ""]
        }
        let text = ([Self.origin(of: instance)] + fields).joined(separator: "\u{0}")
        return Hex.lowercase(SHA256.hash(Data(text.utf8)))
    }

    /// `scheme://host[:port]`, lowercased, for an instance URL.
    static func origin(of instance: URL) -> String {
        let scheme = instance.scheme?.lowercased() ?? "https"
        let host = instance.host?.lowercased() ?? ""
        return instance.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}

/// The stable id that names a signed-in user's partition (``SessionIdentity/user(id:)``), derived
/// from what proves the identity.
///
/// Two kinds of proof give two kinds of key, which can never be equal to each other or to a user id
/// an application configured directly before keys were derived (their prefixes differ):
/// - the instance says who the user is (a "who am I" request, or the `sub` claim of the JWT the
///   user's credentials are exchanged with): `instance-user:<origin>:<id>`;
/// - otherwise the credential source: `credential:<digest>`, and with a name the caller chose
///   (`--user`), `credential:<digest>:user:<name>`, a partition of that source's only.
public enum IdentityKey {
    /// The key of the user the instance at `instance` calls `userID`.
    public static func instanceUser(_ userID: String, instance: URL) -> String {
        "instance-user:\(CredentialSource.origin(of: instance)):\(userID)"
    }

    /// The key of the user who holds `source`, optionally narrowed to `name`.
    public static func credential(_ source: CredentialSource, instance: URL, name: String? = nil) -> String {
        let base = "credential:\(source.digest(instance: instance))"
        return name.map { "\(base):user:\($0)" } ?? base
    }
}
