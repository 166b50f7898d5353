import FoundationEssentials
import HTTPCore

/// Resolves page references (`nav/home`, `/api/now/table?x=1`, full URLs) against the instance URL.
public enum InstanceURL {
    /// Why a reference cannot be resolved.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// A complete sentence naming the input.
        public var message: String

        /// The message.
        public var description: String { message }
    }

    /// The absolute `http` or `https` URL that `reference` names on the instance at `base`.
    ///
    /// `base` names the instance's root, so a base without a trailing `/` is treated as a directory:
    /// `nav/home` against `https://example.com/portal` is `https://example.com/portal/nav/home`, while
    /// `/nav/home` is `https://example.com/nav/home` (RFC 3986 §5.2). An absolute `http(s)` reference
    /// is returned as is.
    ///
    /// - Throws: ``InstanceURL/Error`` when `base` is not an absolute `http(s)` URL with a host, or
    ///   `reference` is empty, holds spaces or control characters, does not parse, or names another scheme.
    public static func resolve(_ reference: String, against base: URL) throws(InstanceURL.Error) -> URL {
        guard let scheme = base.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = base.host, !host.isEmpty
        else {
            throw Error(message: "The instance URL \"\(base.absoluteString)\" is not an absolute http or https URL.")
        }
        let trimmed = reference.trimmingWhitespace()
        guard !trimmed.isEmpty else {
            throw Error(message: "The page reference is empty; give a path such as \"nav/home\" or a full URL.")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw Error(
                message: "The page reference \"\(reference)\" contains spaces or control characters; "
                    + "percent-encode them."
            )
        }
        guard base.query == nil, base.fragment == nil else {
            throw Error(
                message: "The instance URL \"\(base.absoluteString)\" has a query or fragment; "
                    + "give only the scheme, host and path."
            )
        }
        var directory = base
        if !base.path(percentEncoded: true).hasSuffix("/") {
            directory = URL(string: base.absoluteString + "/") ?? base
        }
        guard let resolved = URL(parsing: trimmed, relativeTo: directory)?.absoluteURL else {
            throw Error(message: "The page reference \"\(reference)\" is not a valid URL reference.")
        }
        guard let resolvedScheme = resolved.scheme?.lowercased(), resolvedScheme == "http" || resolvedScheme == "https"
        else {
            throw Error(
                message: "The page reference \"\(reference)\" uses the scheme \"\(resolved.scheme ?? "")\"; "
                    + "only http and https pages can be loaded."
            )
        }
        guard let resolvedHost = resolved.host(percentEncoded: true), !resolvedHost.isEmpty else {
            throw Error(message: "The page reference \"\(reference)\" resolves to a URL without a host.")
        }
        return resolved
    }
}
