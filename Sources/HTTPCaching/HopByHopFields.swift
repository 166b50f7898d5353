import HTTPCore

/// The header fields that describe one connection rather than the message (RFC 9110 §7.6.1):
/// never stored (RFC 9111 §3.1) and never forwarded.
///
/// They are `Connection` and every field it names, `Proxy-Connection`, `Keep-Alive`, `TE`,
/// `Transfer-Encoding`, `Upgrade`, `Trailer` (it announces the trailer fields of one chunked
/// transfer) and every `Proxy-*` field: `Proxy-Authenticate`, `Proxy-Authorization` and
/// `Proxy-Authentication-Info` belong to the hop to a proxy (RFC 9110 §11.7), and RFC 9111 §3.1
/// lists them among the fields a cache does not store.
///
/// ```swift
/// let fields: HTTPHeaders = ["Connection": "X-Trace", "X-Trace": "1", "ETag": "\"a\""]
/// HopByHopFields.removed(from: fields) // ["ETag": "\"a\""]
/// ```
public enum HopByHopFields {
    /// The hop-by-hop names every message has, lowercased, beside those its `Connection` names and
    /// every name starting with `proxy-`.
    public static let names: Set<String> = [
        "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// The lowercased names of the hop-by-hop fields of `headers`: ``names``, the `Proxy-*` fields
    /// and the options of every `Connection` line (RFC 9110 §7.6.1).
    public static func names(in headers: HTTPHeaders) -> Set<String> {
        var found = names.union(headers.listValues(for: "Connection").map { $0.lowercased() })
        for field in headers where isProxyField(field.name) {
            found.insert(field.name.lowercased())
        }
        return found
    }

    /// `headers` without their hop-by-hop fields, the other lines in order.
    public static func removed(from headers: HTTPHeaders) -> HTTPHeaders {
        // Most stored responses carry none (they lost them when stored): returned as they are.
        // `Connection` is among the names, so any field it lists is removed below.
        var found = false
        var options: [String] = []
        for field in headers.fields where isHopByHop(field) {
            found = true
            // `keep-alive`, the value nearly every response sends, names only a field that goes anyway.
            if field.name.caseInsensitiveEquals("Connection"), !field.value.caseInsensitiveEquals("keep-alive") {
                options += HTTPHeaders.splitList(field.value)
            }
        }
        guard found else { return headers }
        // Into an array with room for every line: filtering grew one line by line.
        var kept: [HTTPField] = []
        kept.reserveCapacity(headers.count)
        for field in headers.fields where !isHopByHop(field) {
            if !options.contains(where: { $0.caseInsensitiveEquals(field.name) }) { kept.append(field) }
        }
        return HTTPHeaders(kept)
    }

    /// Whether a field is among ``names`` or a `Proxy-*` field, compared in place by the names of its
    /// length (a stored response's every field is asked on every hit).
    private static func isHopByHop(_ field: HTTPField) -> Bool {
        let name = field.name
        let named = switch name.utf8.count {
        case 2: name.caseInsensitiveEquals("te")
        case 7: name.caseInsensitiveEquals("trailer") || name.caseInsensitiveEquals("upgrade")
        case 10: name.caseInsensitiveEquals("connection") || name.caseInsensitiveEquals("keep-alive")
        case 17: name.caseInsensitiveEquals("transfer-encoding")
        default: false
        }
        return named || isProxyField(name)
    }

    private static func isProxyField(_ name: String) -> Bool {
        // `| 0x20` turns only `P` and `p` into `p`.
        let bytes = name.utf8
        return bytes.count > 6 && bytes.first.map { $0 | 0x20 } == UInt8(ascii: "p")
            && name.prefix(6).caseInsensitiveEquals("proxy-")
    }
}
