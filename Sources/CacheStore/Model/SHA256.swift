import Foundation

/// SHA-256 (FIPS 180-4), computed incrementally so that a body can be hashed chunk by chunk.
///
/// The toolchain offers no cryptography on Linux, and content addressing needs only this function.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(chunk1)
/// hasher.update(chunk2)
/// let digest = hasher.finalize()   // 32 bytes
/// ```
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Creates a hasher with nothing hashed yet.
    public init() {
        pending.reserveCapacity(64)
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
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            if pending.count == 64 {
                pending.withUnsafeBytes { compress($0.baseAddress!) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        while bytes.count - offset >= 64 {
            compress(bytes.baseAddress! + offset)
            offset += 64
        }
        if offset < bytes.count {
            pending.append(contentsOf: bytes[offset...])
        }
    }

    /// Finishes the message and returns its 32-byte digest.
    public func finalize() -> Data {
        var copy = self
        let bitLength = length &* 8
        var padding: [UInt8] = [0x80]
        let used = (pending.count + 1) % 64
        padding += [UInt8](repeating: 0, count: used <= 56 ? 56 - used : 120 - used)
        for shift in stride(from: 56, through: 0, by: -8) {
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        let savedLength = copy.length
        padding.withUnsafeBytes { copy.update(bytes: $0) }
        copy.length = savedLength
        precondition(copy.pending.isEmpty, "SHA-256 padding must complete a block.")
        var digest = Data(capacity: 32)
        for word in [
            copy.state.0, copy.state.1, copy.state.2, copy.state.3,
            copy.state.4, copy.state.5, copy.state.6, copy.state.7,
        ] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    // MARK: - Compression

    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for index in 0..<16 {
                let base = index * 4
                w[index] =
                    UInt32(block.load(fromByteOffset: base, as: UInt8.self)) << 24
                    | UInt32(block.load(fromByteOffset: base + 1, as: UInt8.self)) << 16
                    | UInt32(block.load(fromByteOffset: base + 2, as: UInt8.self)) << 8
                    | UInt32(block.load(fromByteOffset: base + 3, as: UInt8.self))
            }
            for index in 16..<64 {
                let s0 = w[index - 15].rotatedRight(7) ^ w[index - 15].rotatedRight(18) ^ (w[index - 15] >> 3)
                let s1 = w[index - 2].rotatedRight(17) ^ w[index - 2].rotatedRight(19) ^ (w[index - 2] >> 10)
                w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            for index in 0..<64 {
                let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                let choice = (e & f) ^ (~e & g)
                let t1 = h &+ s1 &+ choice &+ sha256RoundConstants[index] &+ w[index]
                let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ t1
                d = c
                c = b
                b = a
                a = t1 &+ t2
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
            )
        }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}

/// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 §4.2.2).
private let sha256RoundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
]
