import CCrypto
import FoundationEssentials
import HTTPCore

extension WARCDigest {
    /// A digest algorithm a WARC digest label may name, which libcrypto computes.
    public enum Algorithm: String, Sendable {
        /// SHA-1, as wget and older crawlers label payloads (`sha1:`).
        case sha1
        /// SHA-256, as webcache labels them (`sha256:`).
        case sha256

        /// The length of a digest in bytes.
        var length: Int { self == .sha1 ? 20 : 32 }
    }

    /// The algorithm and digest a label names (`sha1:` or `sha256:`, in base 32 or hexadecimal), or
    /// `nil` when it names another algorithm or is malformed.
    public static func digest(fromLabel label: String) -> (algorithm: Algorithm, value: Data)? {
        let parts = label.trimmingHTTPWhitespace().split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()) else { return nil }
        let value = String(parts[1])
        if value.count == algorithm.length * 2, let bytes = hexBytes(value) { return (algorithm, bytes) }
        guard let bytes = base32Bytes(value), bytes.count == algorithm.length else { return nil }
        return (algorithm, bytes)
    }

    /// The digest of the bytes `next` hands out until it returns `nil`, by `algorithm`.
    ///
    /// - Throws: What `next` throws.
    public static func digest(_ algorithm: Algorithm, of next: () throws -> Data?) throws -> Data {
        LibCrypto.load()
        guard let context = ccrypto_md_ctx_new() else {
            fatalError("libcrypto could not allocate a digest context (out of memory).")
        }
        defer { ccrypto_md_ctx_free(context) }
        guard ccrypto_digest_init_ex(context, algorithm == .sha1 ? ccrypto_sha1() : ccrypto_sha256(), nil) == 1 else {
            fatalError("libcrypto could not start a \(algorithm.rawValue) digest.")
        }
        while let bytes = try next() {
            let status = bytes.withUnsafeBytes { ccrypto_digest_update(context, $0.baseAddress, $0.count) }
            guard status == 1 else { fatalError("libcrypto failed to hash \(bytes.count) bytes.") }
        }
        var digest = Data(count: algorithm.length)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBytes { buffer in
            ccrypto_digest_final_ex(context, buffer.bindMemory(to: UInt8.self).baseAddress, &length)
        }
        guard status == 1, Int(length) == algorithm.length else {
            fatalError("libcrypto failed to finish a \(algorithm.rawValue) digest.")
        }
        return digest
    }
}
