import FoundationEssentials
import HTTPCore

/// `WARC-Block-Digest` and `WARC-Payload-Digest` values (WARC 1.1 §5.8, §5.9): `algorithm:value`.
///
/// webcache writes SHA-256 in base 32 (RFC 4648, with padding), as `warcio` writes and checks it:
/// the payload digest is then the body's content address in the store, so it costs no hashing on
/// export and a revisit record names exactly the body it shares. SHA-1 in base 32, the older
/// convention of wget and Heritrix, is read: such digests pair revisits with their responses.
public enum WARCDigest {
    /// `sha256:` and the base-32 form of a 32-byte SHA-256 digest.
    public static func sha256Label(_ digest: Data) -> String {
        "sha256:" + base32(digest)
    }

    /// The SHA-256 digest a label names, or `nil` when it names another algorithm or is malformed.
    /// Base 32 and hexadecimal values are read.
    public static func sha256(fromLabel label: String) -> Data? {
        let parts = label.trimmingHTTPWhitespace().split(separator: ":", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "sha256" else { return nil }
        let value = String(parts[1])
        if value.count == 64, let bytes = hexBytes(value) { return bytes }
        return base32Bytes(value).flatMap { $0.count == 32 ? $0 : nil }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// RFC 4648 base 32 with `=` padding.
    static func base32(_ data: Data) -> String {
        var output: [UInt8] = []
        var buffer: UInt64 = 0
        var bits = 0
        for byte in data {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int(buffer >> UInt64(bits - 5) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt64(5 - bits) & 31)]) }
        while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        return String(decoding: output, as: UTF8.self)
    }

    static func base32Bytes(_ text: String) -> Data? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 5 / 8)
        var buffer: UInt64 = 0
        var bits = 0
        for character in text.utf8 where character != UInt8(ascii: "=") {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = character - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = buffer << 5 | UInt64(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8(buffer >> UInt64(bits - 8) & 0xFF))
                bits -= 8
            }
        }
        return Data(output)
    }

    static func hexBytes(_ text: String) -> Data? {
        var output = Data()
        var high: UInt8?
        for character in text.lowercased().utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                output.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? output : nil
    }
}
