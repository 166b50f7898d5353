#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `format` with `arguments` put in by C's `vsnprintf` (`"%.1f"`, `"%04d"`): the text Foundation's
    /// `String(format:)` gives for such formats, which FoundationEssentials does not have.
    public init(printf format: String, _ arguments: any CVarArg...) {
        let length = withVaList(arguments) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else {
            self = ""
            return
        }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        self = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
