#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns on Foundation's processing of host names (IDNA: punycode for an internationalised name,
/// refusal of a name with characters no host may hold) the first time a URL needs it.
///
/// The executable links FoundationEssentials only, whose `URL` parser percent-encodes such a host
/// (`b%C3%BCcher.example`, `exa%20mple.test`) where Foundation converts it (`xn--bcher-kva.example`)
/// or refuses the URL; the processing is in FoundationInternationalization, which plugs it into the
/// parser when it is loaded. Loading it and ICU costs a start about a third more instructions, so
/// it is loaded for the first such host only. In an app that imports Foundation it is loaded
/// already, and this does nothing.
public enum InternationalNames {
    /// Loads the processing when the authority of `text` (after its first `//`) has a byte that
    /// Foundation's parser hands it: one outside ASCII, a space or control, one of `"<>\^`{|}`, or a
    /// `%` that starts no escape. Call it before parsing `text` as a URL.
    public static func prepare(forURL text: some StringProtocol) {
        if needsProcessing(url: text.utf8) { _ = loaded }
    }

    /// Loads the processing when `host` (a host alone, as a user gives it) has such a byte.
    public static func prepare(forHost host: some StringProtocol) {
        if needsProcessing(authority: host.utf8) { _ = loaded }
    }

    /// Whether the authority of the URL in `bytes` needs the processing; before a `//`, a byte
    /// outside ASCII counts too (a relative reference's, which a base may give a host).
    static func needsProcessing(url bytes: some Collection<UInt8>) -> Bool {
        var previous: UInt8 = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            if byte >= 0x80 || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { return byte >= 0x80 }
            if byte == UInt8(ascii: "/"), previous == UInt8(ascii: "/") {
                let end = bytes[index...].firstIndex { "/?#\\".utf8.contains($0) } ?? bytes.endIndex
                return needsProcessing(authority: bytes[index..<end])
            }
            previous = byte
        }
        return false
    }

    /// Whether an authority (or a host) has a byte that Foundation's parser processes.
    static func needsProcessing(authority bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        for (offset, byte) in array.enumerated() {
            if byte >= 0x80 || byte <= 0x20 || byte == 0x7F || "\"<>\\^`{|}".utf8.contains(byte) { return true }
            if byte == UInt8(ascii: "%") {
                guard offset + 2 < array.count, array[offset + 1].isHexDigit, array[offset + 2].isHexDigit else {
                    return true
                }
            }
        }
        return false
    }

    /// Whether the library is loaded; the first read loads it, once.
    private static let loaded: Bool = dlopen("libFoundationInternationalization.so", RTLD_NOW | RTLD_GLOBAL) != nil
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
