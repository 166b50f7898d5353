import CCrypto
import FoundationEssentials

/// SHA-256 (FIPS 180-4), computed incrementally so that a body can be hashed chunk by chunk.
///
/// The digest comes from the system's libcrypto through its EVP API, which uses the processor's
/// SHA extensions where it has them. The hasher is a value: a copy hashes on independently.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(chunk1)
/// hasher.update(chunk2)
/// let digest = hasher.finalize()   // 32 bytes
/// ```
public struct SHA256: Sendable {
    private var context: DigestContext

    /// Creates a hasher with nothing hashed yet.
    public init() {
        context = DigestContext()
    }

    /// The digest of `data` in one call.
    public static func hash(_ data: Data) -> Data {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Adds `data` to the message.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(bytes: $0) }
    }

    /// Adds `bytes` to the message.
    public mutating func update(bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        if !isKnownUniquelyReferenced(&context) {
            context = context.copy()
        }
        context.update(bytes)
    }

    /// Finishes the message and returns its 32-byte digest; the hasher itself is left unchanged.
    public func finalize() -> Data {
        context.copy().finalize()
    }
}

// MARK: - Digest context

/// Owns one libcrypto `EVP_MD_CTX` for SHA-256.
///
/// `@unchecked Sendable` is safe because ``SHA256`` is the only owner and treats the context as
/// copy-on-write: it mutates a context only after `isKnownUniquelyReferenced` proved that no other
/// value (and so no other thread) holds it, and a shared context is only read (`copy()` reads its
/// source through a `const` pointer). `finalize()` runs on a fresh copy that no one else sees.
private final class DigestContext: @unchecked Sendable {
    private let pointer: OpaquePointer

    init() {
        pointer = Self.allocate()
        guard ccrypto_digest_init_ex(pointer, Self.algorithm, nil) == 1 else {
            fatalError("libcrypto could not start a SHA-256 digest.")
        }
    }

    private init(copying source: OpaquePointer) {
        pointer = Self.allocate()
        guard ccrypto_md_ctx_copy_ex(pointer, source) == 1 else {
            fatalError("libcrypto could not copy a SHA-256 digest context.")
        }
    }

    deinit {
        ccrypto_md_ctx_free(pointer)
    }

    func copy() -> DigestContext {
        DigestContext(copying: pointer)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard ccrypto_digest_update(pointer, bytes.baseAddress, bytes.count) == 1 else {
            fatalError("libcrypto failed to hash \(bytes.count) bytes with SHA-256.")
        }
    }

    /// Ends the digest; the context must not be used again.
    func finalize() -> Data {
        var digest = Data(count: 32)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBytes { buffer in
            ccrypto_digest_final_ex(pointer, buffer.bindMemory(to: UInt8.self).baseAddress, &length)
        }
        guard status == 1, length == 32 else {
            fatalError("libcrypto failed to finish a SHA-256 digest.")
        }
        return digest
    }

    /// SHA-256, fetched from libcrypto's default provider once: with `ccrypto_sha256()` every digest
    /// started looks the algorithm up again (OpenSSL 3's implicit fetch), and one is started for
    /// every body stored: 0.7 % of a preload of tiny responses. Never freed: it lives as long as the
    /// process. `ccrypto_sha256()` if the fetch fails. `nonisolated(unsafe)`: libcrypto's algorithm
    /// objects are immutable once fetched and may be used from any thread.
    private nonisolated(unsafe) static let algorithm: OpaquePointer =
        ccrypto_md_fetch(nil, "SHA256", nil) ?? ccrypto_sha256()

    private static func allocate() -> OpaquePointer {
        LibCrypto.load()
        guard let pointer = ccrypto_md_ctx_new() else {
            fatalError("libcrypto could not allocate a digest context (out of memory).")
        }
        return pointer
    }
}

/// libcrypto, which the `CCrypto` target loads when the first digest is made.
package enum LibCrypto {
    /// Loads libcrypto if no digest did before; a process that cannot load it stops, saying why.
    package static func load() {
        if let failure = ccrypto_load() { fatalError(String(cString: failure)) }
    }
}
