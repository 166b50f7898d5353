import FoundationEssentials

/// Reads WARC records one after another from a `.warc` or `.warc.gz` (gzip-compressed record by
/// record, as WARC 1.1 Annex D recommends), streaming each record's block so that memory stays flat.
///
/// A damaged record throws an ``ArchiveError`` with its offset (of its gzip member, when compressed);
/// the next call of ``nextRecord()`` goes on with the record after it: in a compressed file the next
/// gzip member, in an uncompressed one the next line that starts with `WARC/`. A source that cannot
/// be read further (a damaged deflated zip member, a failing disk) is reported once, at the record
/// being read, and the reader ends there. A file that does not start with a record (after blank lines)
/// is not a WARC file: the first call throws an error without an offset, and the reader ends there.
///
/// ```swift
/// let reader = try await WARCReader(source: FileByteSource(path: path))
/// while let record = try await reader.nextRecord() {
///     while let piece = try await reader.readBlock() { consume(piece) }
/// }
/// ```
public final class WARCReader {
    /// A record's header and where it starts.
    public struct Record: Sendable {
        /// The record's named fields.
        public var header: WARCHeader
        /// The offset of the record (of its gzip member, when compressed).
        public var offset: Int64
    }

    /// Whether the file is gzip-compressed.
    public let isCompressed: Bool
    private let members: GzipMemberReader?
    private let plain: (any ByteSource)?
    private var window = Data()
    private var index = 0
    /// For an uncompressed file: the offset of `window`'s first byte.
    private var windowOffset: Int64 = 0
    private var blockRemaining: Int64 = 0
    private var current: Record?
    private var damaged: Damage?
    /// The offset of the last error thrown, until a record is read.
    private var lastErrorOffset: Int64?
    private var ended = false
    /// Whether a record's version line was found: the file is a WARC file.
    private var startsLikeWARC = false

    /// What a damaged record leaves to skip.
    private enum Damage {
        /// The record's bytes were wrong; a compressed file's member itself is sound.
        case record(offset: Int64)
        /// The gzip member could not be decompressed, or the source could not be read, at the record at `offset`.
        case member(offset: Int64)
    }

    /// The longest record header read: a longer one is damage, not a header.
    static let maximumHeaderLength = 1 << 20
    private static let pieceSize = 256 * 1024

    /// A reader of the WARC records in `source`, compressed or not (told by its first bytes).
    ///
    /// - Throws: What reading `source` throws.
    public init(source: any ByteSource) async throws {
        var first = Data()
        while first.count < 2 {
            let piece = try await source.read(maxLength: 2 - first.count)
            if piece.isEmpty { break }
            first.append(piece)
        }
        isCompressed = first.count == 2 && first[first.startIndex] == 0x1F && first[first.startIndex + 1] == 0x8B
        if isCompressed {
            members = GzipMemberReader(source: PrefixedByteSource(prefix: first, base: source))
            plain = nil
        } else {
            // The window holds the bytes read; the source goes on after them, seekable or not.
            members = nil
            plain = source
            window = first
        }
    }

    /// The next record, positioned at the start of its block; `nil` at the end of the file.
    /// What is left of the previous record's block is skipped (and its end checked).
    ///
    /// - Throws: ``ArchiveError`` with the record's offset when it is damaged; call again to go on.
    ///   ``ArchiveError`` without an offset when the file does not start with a record: it is not a
    ///   WARC file, and the reader ends.
    public func nextRecord() async throws -> Record? {
        do {
            if let damage = damaged {
                damaged = nil
                try await recover(from: damage)
            } else if current != nil {
                while try await readPiece() != nil {}
            }
            current = nil
            guard !ended else { return nil }
            let record = try await readHeader()
            lastErrorOffset = nil
            return record
        } catch let error as ArchiveError {
            throw endIfStuck(error)
        }
    }

    /// The next piece of the current record's block (at most 256 KiB), `nil` after its last byte,
    /// once the record's end (an empty line after the block) has been checked.
    ///
    /// - Throws: ``ArchiveError`` with the record's offset when the block is shorter than its
    ///   `Content-Length` or is not followed by the empty line.
    public func readBlock() async throws -> Data? {
        do {
            return try await readPiece()
        } catch let error as ArchiveError {
            throw endIfStuck(error)
        }
    }

    /// A guard against reading without end: an error at the offset of the one before, with no record
    /// read between, means recovering did not move on, so the reader ends there.
    private func endIfStuck(_ error: ArchiveError) -> ArchiveError {
        defer { lastErrorOffset = error.offset }
        guard !ended, let offset = error.offset, offset == lastErrorOffset else { return error }
        ended = true
        damaged = nil
        current = nil
        return ArchiveError(offset: offset, reason: error.reason + " Reading stops here, as it cannot get past this.")
    }

    private func readPiece() async throws -> Data? {
        guard let record = current else { return nil }
        if blockRemaining == 0 {
            current = nil
            try await expectRecordEnd(record)
            return nil
        }
        if index >= window.count {
            guard try await fill(for: record) else {
                throw fail(record, "The record is shorter than its Content-Length (\(blockRemaining) bytes missing).")
            }
        }
        let count = Int(min(Int64(window.count - index), blockRemaining, Int64(Self.pieceSize)))
        let piece = window.subdata(in: (window.startIndex + index)..<(window.startIndex + index + count))
        index += count
        blockRemaining -= Int64(count)
        return piece
    }

    // MARK: - Records

    private func readHeader() async throws -> Record? {
        // Blank lines between records are tolerated.
        while true {
            if index >= window.count, !(try await fillAtRecordStart()) { return nil }
            let byte = window[window.startIndex + index]
            guard byte == 13 || byte == 10 else { break }
            index += 1
        }
        let offset = members?.memberOffset ?? windowOffset + Int64(index)
        let provisional = Record(header: WARCHeader(), offset: offset)
        while window.count - index < 5, try await fill(for: provisional) {}
        guard window[(window.startIndex + index)...].starts(with: Data("WARC/".utf8)) else {
            guard startsLikeWARC else {
                ended = true
                throw ArchiveError(reason: "The file does not start with a WARC record, so it is not a WARC file.")
            }
            throw fail(provisional, "The record does not start with a WARC version line.")
        }
        startsLikeWARC = true
        var end: Range<Data.Index>?
        while true {
            let searchStart = window.startIndex + index
            end = HTTPMessageHead.blankLine(in: window, from: searchStart)
            if end != nil { break }
            guard window.count - index < Self.maximumHeaderLength else {
                throw fail(provisional, "The record header is longer than 1 MiB or never ends.")
            }
            guard try await fill(for: provisional) else {
                throw fail(provisional, "The file ends inside a record header.")
            }
        }
        let headerEnd = end!
        let bytes = window.subdata(in: (window.startIndex + index)..<headerEnd.lowerBound)
        index = headerEnd.upperBound - window.startIndex
        let header: WARCHeader
        do {
            header = try WARCHeader.parse(bytes)
        } catch let error as ArchiveError {
            throw fail(provisional, error.reason)
        }
        let record = Record(header: header, offset: offset)
        guard let length = header.contentLength, length >= 0 else {
            throw fail(record, "The record has no valid Content-Length.")
        }
        blockRemaining = length
        current = record
        return record
    }

    /// Checks the two line ends that follow a block (`CRLF CRLF`; bare `LF`s are accepted).
    private func expectRecordEnd(_ record: Record) async throws {
        var seen = 0
        var newlines = 0
        while newlines < 2 {
            if index >= window.count {
                guard try await fill(for: record) else {
                    throw fail(record, "The record's block is not followed by an empty line: its Content-Length is wrong, "
                        + "or the file ends early.")
                }
            }
            let byte = window[window.startIndex + index]
            if byte == 10 {
                newlines += 1
            } else if byte != 13 || seen > 3 {
                throw fail(record, "The record's block is not followed by an empty line: its Content-Length is wrong.")
            }
            seen += 1
            index += 1
        }
    }

    /// Marks the current record damaged and returns the error to throw.
    private func fail(_ record: Record, _ reason: String) -> ArchiveError {
        current = nil
        blockRemaining = 0
        damaged = .record(offset: record.offset)
        return ArchiveError(offset: record.offset, reason: reason)
    }

    // MARK: - Bytes

    /// Adds the next decoded bytes to the window, within the current gzip member; `false` at its end
    /// (or the file's). A damaged member is reported for `record`.
    private func fill(for record: Record) async throws -> Bool {
        compactWindow()
        do {
            let piece: Data
            if let members {
                piece = try await members.read(maxLength: Self.pieceSize)
            } else {
                piece = try await plain!.read(maxLength: Self.pieceSize)
            }
            window.append(piece)
            return !piece.isEmpty
        } catch let error as ArchiveError {
            current = nil
            blockRemaining = 0
            damaged = .member(offset: record.offset)
            throw ArchiveError(offset: record.offset, reason: error.reason)
        }
    }

    /// Like ``fill(for:)`` between records, where a compressed file moves on to its next member.
    private func fillAtRecordStart() async throws -> Bool {
        let atStart = Record(header: WARCHeader(), offset: members?.memberOffset ?? windowOffset + Int64(index))
        if try await fill(for: atStart) { return true }
        guard let members else {
            ended = true
            return false
        }
        do {
            while try await members.nextMember() {
                if try await fill(for: Record(header: WARCHeader(), offset: members.memberOffset)) { return true }
            }
        } catch let error as ArchiveError {
            damaged = .member(offset: members.memberOffset)
            throw error
        }
        ended = true
        return false
    }

    private func compactWindow() {
        guard index > 0 else { return }
        windowOffset += Int64(index)
        window = index >= window.count ? Data() : window.subdata(in: (window.startIndex + index)..<window.endIndex)
        index = 0
    }

    /// Moves past a damaged record to where the next one can start. When the source cannot be read
    /// to get there, the reader ends, with the error at the damaged record.
    private func recover(from damage: Damage) async throws {
        do {
            try await moveOn(from: damage)
        } catch let error as ArchiveError {
            ended = true
            switch damage {
            case .record(let offset), .member(let offset):
                throw ArchiveError(offset: error.offset ?? offset, reason: error.reason)
            }
        }
    }

    private func moveOn(from damage: Damage) async throws {
        if let members {
            window = Data()
            index = 0
            let more: Bool
            switch damage {
            case .member: more = try await members.skipDamagedMember()
            case .record(let offset):
                do {
                    more = try await members.nextMember()
                } catch is ArchiveError {
                    return try await moveOn(from: .member(offset: offset))
                }
            }
            if !more { ended = true }
            return
        }
        // An uncompressed source that failed cannot be read on.
        guard case .record(let offset) = damage else {
            ended = true
            return
        }
        // Uncompressed: look for the next "WARC/" at the start of a line after the damaged record's start.
        if let seekable = plain as? any SeekableByteSource, (try? seekable.seek(to: offset + 1)) != nil {
            window = Data()
            index = 0
            windowOffset = offset + 1
        } else {
            // A pipe cannot go back: look on from where reading stopped.
            compactWindow()
        }
        while true {
            if let found = window.firstRange(of: Data("\nWARC/".utf8)) {
                index = found.lowerBound - window.startIndex + 1
                return
            }
            let keep = min(5, window.count)
            windowOffset += Int64(window.count - keep)
            window = Data(window.suffix(keep))
            let piece = try await plain!.read(maxLength: Self.pieceSize)
            if piece.isEmpty {
                ended = true
                return
            }
            window.append(piece)
        }
    }
}
