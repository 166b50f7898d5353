import FoundationEssentials

/// Removes HTTP/1.1 chunked transfer coding (RFC 9112 §7.1) from content fed a piece at a time, as
/// wget and other crawlers store it in WARC records exactly as received.
public struct ChunkedDecoder: Sendable {
    private enum State: Sendable {
        case size(String)
        case sizeExtension(Int)
        case data(Int)
        case dataEnd(seenCR: Bool)
        case trailer(lineLength: Int)
        case done
    }

    private var state = State.size("")

    /// A decoder at the start of chunked content.
    public init() {}

    /// Whether the last chunk and the trailer section have been read.
    public var isFinished: Bool {
        if case .done = state { return true }
        return false
    }

    /// The content bytes in `data`.
    ///
    /// - Throws: ``ArchiveError`` (without an offset) when the bytes are not chunked coding.
    public mutating func decode(_ data: Data) throws -> Data {
        var output = Data()
        var index = data.startIndex
        while index < data.endIndex {
            let byte = data[index]
            switch state {
            case .size(let digits):
                if let _ = hexValue(byte) {
                    guard digits.count < 15 else { throw ArchiveError(reason: "A chunk size is too large.") }
                    state = .size(digits + String(UnicodeScalar(byte)))
                } else if byte == UInt8(ascii: ";") || byte == 13 || byte == 10 || byte == 32 || byte == 9 {
                    guard let size = Int(digits, radix: 16) else {
                        throw ArchiveError(reason: "A chunk has no size.")
                    }
                    state = .sizeExtension(size)
                    continue
                } else {
                    throw ArchiveError(reason: "A chunk size is not hexadecimal.")
                }
            case .sizeExtension(let size):
                if byte == 10 { state = size == 0 ? .trailer(lineLength: 0) : .data(size) }
            case .data(let remaining):
                let count = min(remaining, data.endIndex - index)
                output.append(data[index..<(index + count)])
                index += count
                state = remaining == count ? .dataEnd(seenCR: false) : .data(remaining - count)
                continue
            case .dataEnd(let seenCR):
                if byte == 13, !seenCR {
                    state = .dataEnd(seenCR: true)
                } else if byte == 10 {
                    state = .size("")
                } else {
                    throw ArchiveError(reason: "A chunk is not followed by a line end.")
                }
            case .trailer(let lineLength):
                if byte == 10 {
                    state = lineLength == 0 ? .done : .trailer(lineLength: 0)
                } else if byte != 13 {
                    state = .trailer(lineLength: lineLength + 1)
                }
            case .done:
                return output
            }
            index += 1
        }
        return output
    }

    private func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
