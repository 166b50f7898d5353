import CZlib
import FoundationEssentials

/// Reads a file of gzip members (a `.warc.gz`) one member at a time, decompressing as it goes, and
/// knows the offset at which each member starts in the compressed file.
///
/// ``read(maxLength:)`` returns empty at the end of the current member; ``nextMember()`` moves on.
/// After a damaged member, ``skipDamagedMember()`` looks for the next member's header bytes.
final class GzipMemberReader {
    private let source: any ByteSource
    private var stream = z_stream()
    private var input = Data()
    private var inputIndex = 0
    /// The file offset of `input`'s first byte.
    private var inputOffset: Int64 = 0
    private var sourceEnded = false
    private var memberEnded = true
    private var output = [UInt8](repeating: 0, count: 256 * 1024)

    /// The file offset of the current member's first byte.
    private(set) var memberOffset: Int64 = 0

    init(source: any ByteSource) {
        self.source = source
        // 15 + 16: gzip only (a member with a zlib header is damaged input here).
        let status = inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not start inflating (status \(status)).")
    }

    deinit {
        inflateEnd(&stream)
    }

    /// The offset in the file of the next compressed byte.
    private var position: Int64 { inputOffset + Int64(inputIndex) }

    /// Up to `maxLength` decompressed bytes of the current member; empty at its end.
    ///
    /// - Throws: ``ArchiveError`` at the member's offset when its bytes are not valid gzip or the
    ///   file ends inside it.
    func read(maxLength: Int) async throws -> Data {
        while !memberEnded {
            if inputIndex >= input.count {
                guard try await refill() else {
                    throw ArchiveError(
                        offset: memberOffset, reason: "The gzip member is truncated: the file ends inside it.")
                }
            }
            var produced = 0
            var status: Int32 = Z_OK
            let count = min(maxLength, output.count)
            input.withUnsafeBytes { source in
                output.withUnsafeMutableBufferPointer { target in
                    let base = source.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.next_in = UnsafeMutablePointer(mutating: base + inputIndex)
                    stream.avail_in = uInt(source.count - inputIndex)
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    inputIndex = source.count - Int(stream.avail_in)
                    produced = count - Int(stream.avail_out)
                }
            }
            switch status {
            case Z_STREAM_END:
                memberEnded = true
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                let detail = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw ArchiveError(offset: memberOffset, reason: "The gzip member is damaged (\(detail)).")
            }
            if produced > 0 { return Data(output[0..<produced]) }
        }
        return Data()
    }

    /// Moves to the member after the current one, skipping what is left of it.
    ///
    /// - Returns: `false` at the end of the file.
    /// - Throws: ``ArchiveError`` when the rest of the current member is damaged.
    func nextMember() async throws -> Bool {
        while !memberEnded {
            _ = try await read(maxLength: output.count)
        }
        return try await startMember()
    }

    /// Leaves a damaged member: looks for the next gzip header (`1f 8b 08`) after the current
    /// member's first byte and starts there.
    ///
    /// - Returns: `false` when no other member follows.
    func skipDamagedMember() async throws -> Bool {
        // Back to just after the damaged member's first byte, if it is still buffered; else go on from here.
        let restart = memberOffset + 1
        if restart >= inputOffset, restart <= inputOffset + Int64(input.count) {
            inputIndex = Int(restart - inputOffset)
        }
        while true {
            if let found = input[(input.startIndex + inputIndex)...].firstRange(of: [0x1F, 0x8B, 0x08]) {
                inputIndex = found.lowerBound - input.startIndex
                return try await startMember()
            }
            // Keep the last two bytes: a header may straddle two reads.
            let keep = min(2, input.count - inputIndex)
            inputOffset += Int64(input.count - keep)
            input = Data(input.suffix(keep))
            inputIndex = 0
            guard try await appendInput() else { return false }
        }
    }

    /// Starts a member at the current position; `false` at the end of the file.
    private func startMember() async throws -> Bool {
        if inputIndex >= input.count, !(try await refill()) { return false }
        inflateReset(&stream)
        memberEnded = false
        memberOffset = position
        return true
    }

    /// Replaces the consumed input with the next bytes of the file; `false` at its end.
    private func refill() async throws -> Bool {
        inputOffset += Int64(input.count)
        input = Data()
        inputIndex = 0
        return try await appendInput()
    }

    /// Adds the next bytes of the file to the input; `false` at its end. A source that fails ends
    /// there: its error is thrown once, and the file is then read as if it ended.
    private func appendInput() async throws -> Bool {
        guard !sourceEnded else { return false }
        let data: Data
        do {
            data = try await source.read(maxLength: 256 * 1024)
        } catch {
            sourceEnded = true
            throw error
        }
        if data.isEmpty {
            sourceEnded = true
            return false
        }
        input.append(data)
        return true
    }
}
