#if canImport(Glibc)
import Glibc
#endif

/// One glibc iconv conversion, between a legacy encoding and UTF-8.
///
/// `@unchecked Sendable` is safe because its owners (``TextDecoder``, ``QueryEncoder``) treat it as
/// copy-on-write: they convert through a converter only after `isKnownUniquelyReferenced` proved
/// that no other value (and so no other thread) holds it, or one they made for a single call.
final class IconvConverter: @unchecked Sendable {
    /// Why ``convert(_:into:)`` stopped before the end of its input.
    enum Stop: Sendable {
        /// A byte sequence (or, encoding, a character) the encoding does not have.
        case invalid
        /// A sequence cut off by the end of the input.
        case incomplete
    }

    /// The iconv names of the two encodings.
    let source: String
    let target: String
    private let descriptor: iconv_t

    /// Opens a conversion from `source` to `target`, or `nil` when glibc lacks its module.
    init?(from source: String, to target: String) {
        guard let descriptor = iconv_open(target, source), Int(bitPattern: descriptor) != -1 else { return nil }
        self.source = source
        self.target = target
        self.descriptor = descriptor
    }

    deinit {
        iconv_close(descriptor)
    }

    /// A new conversion between the same encodings, in its initial state.
    func copy() -> IconvConverter? {
        IconvConverter(from: source, to: target)
    }

    /// Converts as much of `input` as can be, appending the result to `output`.
    ///
    /// - Returns: How many bytes of `input` were converted, and why the conversion stopped there
    ///   (`nil` when it converted them all).
    func convert(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> (consumed: Int, stop: Stop?) {
        guard let base = input.baseAddress, !input.isEmpty else { return (0, nil) }
        var inputPointer: UnsafeMutablePointer<CChar>? =
            UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self)
        var inputLeft = input.count
        let stop = run(&inputPointer, &inputLeft, into: &output)
        return (input.count - inputLeft, stop)
    }

    /// Appends what ends the output and returns the conversion to its initial state: a stateful
    /// encoding's escape back to ASCII, or a character held back in case a combining mark follows.
    func finish(into output: inout [UInt8]) {
        var inputLeft = 0
        _ = run(nil, &inputLeft, into: &output)
    }

    /// Runs iconv over the input (none to finish) until it is converted or a sequence stops it.
    private func run(
        _ input: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ inputLeft: inout Int,
        into output: inout [UInt8]
    ) -> Stop? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 * 1024) { buffer in
            while true {
                var outputPointer: UnsafeMutablePointer<CChar>? =
                    UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                var outputLeft = buffer.count
                let result = iconv(descriptor, input, &inputLeft, &outputPointer, &outputLeft)
                let error = errno
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<(buffer.count - outputLeft)]))
                if result != -1 { return nil }
                switch error {
                case E2BIG: continue
                case EINVAL: return .incomplete
                default: return .invalid
                }
            }
        }
    }
}
