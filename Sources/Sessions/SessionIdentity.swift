import FoundationEssentials
import HTTPCore

/// Who a ``Session`` acts for, which names the store partition its cached pages and cookies live in.
///
/// **Partition rule.** A guest's partition is `guest`. A signed-in user's is `user-` followed by the
/// first 16 bytes, in lowercase hex, of the SHA-256 of the stable user id the application configures
/// (not of a token: tokens change at every refresh, the user does not). The hash keeps user ids, often
/// e-mail addresses, out of file names and `inspect` output, and gives every id a name of the same
/// safe shape; 128 bits make a collision between two users' partitions practically impossible.
///
/// ```swift
/// SessionIdentity.user(id: "alice@example.com").partitionName  // "user-ff8d9819fc0e12bf0d24892e45987e24"
/// ```
public enum SessionIdentity: Sendable, Hashable {
    /// Not signed in.
    case guest
    /// A signed-in user, by a stable id such as the instance's user sys_id or an e-mail address.
    case user(id: String)

    /// The store partition of this identity (see the partition rule above).
    public var partitionName: String {
        switch self {
        case .guest:
            "guest"
        case .user(let id):
            "user-" + Hex.lowercase(SHA256.hash(Data(id.utf8)).prefix(16))
        }
    }
}
