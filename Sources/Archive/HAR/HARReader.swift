import FoundationEssentials

/// Reads the entries of a HAR file one at a time, as the file streams in: memory holds the entry
/// being read, not the file. Each entry is decoded on its own, so that a malformed one is reported
/// by its index and the others are still read.
///
/// The file is walked as JSON structure only (containers, strings and their escapes) until the
/// `log.entries` array, whatever other members come before it (`creator`, `pages`); each element of
/// the array is then cut out whole and decoded as a ``HAREntry``. What follows the array is not read.
public final class HARReader {
    /// One container on the way to the entries array, with the member name being read in it.
    private struct Frame {
        var isObject: Bool
        /// The name of the member whose value is being read (objects only).
        var key: [UInt8] = []
        /// Whether the next string in this object is a member name.
        var expectsKey: Bool
    }

    private let source: any ByteSource
    private let readSize: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var frames: [Frame] = []
    private var inEntries = false
    private var finished = false
    private var index = 0

    /// Reads the HAR file at `path`.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened.
    public convenience init(path: String) throws {
        try self.init(source: FileByteSource(path: path))
    }

    /// Reads a HAR file from `source`, `readSize` bytes at a time.
    public init(source: any ByteSource, readSize: Int = 1 << 20) {
        self.source = source
        self.readSize = readSize
    }

    /// The next entry, with its index from 0: decoded, or why it could not be; `nil` after the last.
    ///
    /// - Throws: ``ArchiveError`` when the file is not a HAR file (not JSON, or no `log.entries`
    ///   array), ends inside an entry or is damaged between entries; the entries returned before
    ///   stand, and the reader ends.
    public func next() async throws -> (index: Int, entry: Result<HAREntry, ArchiveError>)? {
        guard !finished else { return nil }
        do {
            return try await readNext()
        } catch {
            finished = true
            throw error
        }
    }

    /// Every call moves on: past the array's end, or past at least the first byte of an element.
    private func readNext() async throws -> (index: Int, entry: Result<HAREntry, ArchiveError>)? {
        if !inEntries { try await findEntries() }
        // Between elements: white space and commas, then an element or the array's end.
        while true {
            guard let byte = try await peekSignificant() else {
                throw ArchiveError(reason: "The file ends inside the log.entries array, after \(index) entries.")
            }
            if byte == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if byte == UInt8(ascii: "]") {
                finished = true
                return nil
            }
            // A value cannot start with a '}': what follows cannot be cut into entries.
            guard byte != UInt8(ascii: "}") else {
                throw ArchiveError(
                    entry: index,
                    reason: "The file is damaged here: a '}' stands where an entry or the end of log.entries should.")
            }
            break
        }
        let number = index
        index += 1
        let element = try await cutElement(number)
        return (number, Self.decode(element, index: number))
    }

    // MARK: - Finding the entries array

    /// Walks the structure up to the first byte inside `log.entries`.
    private func findEntries() async throws {
        guard let first = try await peekSignificant(), first == UInt8(ascii: "{") else {
            throw ArchiveError(reason: "The file is not a JSON object, so it is not a HAR file.")
        }
        while true {
            guard let byte = try await nextByte() else {
                throw ArchiveError(reason: "The file has no log.entries array, so it is not a HAR file.")
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                frames.append(Frame(isObject: byte == UInt8(ascii: "{"), expectsKey: byte == UInt8(ascii: "{")))
                if byte == UInt8(ascii: "["), frames.count == 3, frames[0].key == Self.log,
                    frames[1].key == Self.entries
                {
                    inEntries = true
                    return
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard frames.popLast() != nil, !frames.isEmpty else {
                    throw ArchiveError(reason: "The file has no log.entries array, so it is not a HAR file.")
                }
            case UInt8(ascii: ","):
                if frames.last?.isObject == true { frames[frames.count - 1].expectsKey = true }
            case UInt8(ascii: "\""):
                // A member name near the top is kept (to find `log` and `entries`); other strings are skipped.
                let isKey = frames.last?.isObject == true && frames[frames.count - 1].expectsKey
                let name = try await readString(keeping: isKey && frames.count <= 2)
                if isKey {
                    frames[frames.count - 1].key = name
                    frames[frames.count - 1].expectsKey = false
                }
            default:
                continue
            }
        }
    }

    private static let log = Array("log".utf8)
    private static let entries = Array("entries".utf8)

    /// Reads a string whose opening quote was read; returns its raw bytes when `keeping` (short
    /// member names: escapes are kept as written, which `log` and `entries` never need).
    private func readString(keeping: Bool) async throws -> [UInt8] {
        var kept: [UInt8] = []
        var escaped = false
        while let byte = try await nextByte() {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                return kept
            }
            if keeping, kept.count < 64 { kept.append(byte) }
        }
        throw ArchiveError(reason: "The file ends inside a string, so it is not a whole HAR file.")
    }

    // MARK: - Cutting out one element

    /// The bytes of the element that starts at the current position: an object up to its closing
    /// brace, or any other value up to the next comma or bracket at the array's level.
    private func cutElement(_ number: Int) async throws -> [UInt8] {
        var element: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            if position == buffer.count, !(try await refill()) {
                throw ArchiveError(entry: number, reason: "The file ends inside this entry.")
            }
            let start = position
            var end = buffer.count
            var done = false
            buffer.withUnsafeBufferPointer { bytes in
                var cursor = start
                while cursor < bytes.count {
                    let byte = bytes[cursor]
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == UInt8(ascii: "\\") {
                            escaped = true
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                        }
                    } else {
                        switch byte {
                        case UInt8(ascii: "\""):
                            inString = true
                        case UInt8(ascii: "{"), UInt8(ascii: "["):
                            depth += 1
                        case UInt8(ascii: "}"), UInt8(ascii: "]"):
                            if depth == 0 {
                                // The array ends after a value that was not an object.
                                end = cursor
                                done = true
                                return
                            }
                            depth -= 1
                            if depth == 0 {
                                end = cursor + 1
                                done = true
                                return
                            }
                        case UInt8(ascii: ","):
                            if depth == 0 {
                                end = cursor
                                done = true
                                return
                            }
                        default:
                            break
                        }
                    }
                    cursor += 1
                }
            }
            element.append(contentsOf: buffer[start..<end])
            position = end
            if done { return element }
        }
    }

    private static func decode(_ element: [UInt8], index: Int) -> Result<HAREntry, ArchiveError> {
        do {
            return .success(try JSONDecoder().decode(HAREntry.self, from: Data(element)))
        } catch let DecodingError.keyNotFound(key, context) {
            let path = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            return .failure(ArchiveError(entry: index, reason: "The entry has no '\(path)'."))
        } catch let DecodingError.valueNotFound(_, context) where !context.codingPath.isEmpty {
            return .failure(ArchiveError(entry: index, reason: "The entry's '\(path(of: context))' is null."))
        } catch let DecodingError.typeMismatch(_, context) where !context.codingPath.isEmpty {
            return .failure(ArchiveError(
                entry: index, reason: "The entry's '\(path(of: context))' is not of the type HAR 1.2 gives it."))
        } catch {
            return .failure(ArchiveError(entry: index, reason: "The entry is not a valid HAR entry."))
        }
    }

    /// The member a decoding error is about, such as `request.url`.
    private static func path(of context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    // MARK: - Bytes

    /// The next byte that is not JSON white space, left unread; `nil` at the end of the file.
    private func peekSignificant() async throws -> UInt8? {
        while true {
            if position == buffer.count, !(try await refill()) { return nil }
            let byte = buffer[position]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return byte
            }
        }
    }

    private func nextByte() async throws -> UInt8? {
        if position == buffer.count, !(try await refill()) { return nil }
        position += 1
        return buffer[position - 1]
    }

    /// Reads the next piece of the file into `buffer`; `false` at its end.
    private func refill() async throws -> Bool {
        guard !atEnd else { return false }
        let data = try await source.read(maxLength: readSize)
        guard !data.isEmpty else {
            atEnd = true
            buffer = []
            position = 0
            return false
        }
        buffer = Array(data)
        position = 0
        return true
    }
}
