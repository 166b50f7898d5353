import FoundationEssentials
import HTTPCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A list of URLs read line by line as it is used (``URLListFile/classify(_:line:file:)`` decides
/// what each line is), so that a list of millions of URLs is never held in memory: the reader keeps
/// one buffer of at most ``URLListFile/maximumLineLength`` plus one read.
///
/// A file with NUL bytes is no list of URLs: a regular file is checked whole before the first line
/// is used, and refused; a pipe or standard input is checked as far as the first read, and a NUL
/// byte found further on ends the list there with a problem on its line.
final class URLListStream: Sendable {
    /// The file's name as problems give it.
    let name: String
    private let state: Mutex<State>

    private struct State {
        var descriptor: Int32
        var ownsDescriptor: Bool
        var buffer: [UInt8] = []
        /// Where the unread part of ``buffer`` starts.
        var start = 0
        var lineNumber = 0
        var atEnd = false
        /// Whether nothing has been read yet.
        var atStart = true
        /// Whether a NUL byte was read: the list ends before its line, which is reported.
        var endsAtNUL = false
        /// The length so far of an overlong line being skipped.
        var skipping: Int?
    }

    /// How much one `read` asks for.
    private static let chunkSize = 64 * 1024

    /// Opens the file at `path`, or standard input for `-`.
    /// - Throws: ``CLIError`` naming the file when it does not exist, is a directory, cannot be read,
    ///   or holds NUL bytes where they are looked for before the list is used.
    init(path: String) throws(CLIError) {
        let isStandardInput = path == URLListFile.standardInputPath
        name = isStandardInput ? "<stdin>" : path
        var descriptor = STDIN_FILENO
        if !isStandardInput {
            repeat {
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
            } while descriptor < 0 && errno == EINTR
            guard descriptor >= 0 else { throw Self.failure(name, errno: errno) }
        }
        var state = State(descriptor: descriptor, ownsDescriptor: !isStandardInput)
        do throws(CLIError) {
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                throw Self.failure(name, errno: EISDIR)
            }
            if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                try Self.refuseNULBytes(in: descriptor, name: name)
            } else {
                // Nothing of the list is used yet: a NUL byte in the first read refuses it whole.
                try Self.fill(&state, name: name)
                if state.endsAtNUL { throw URLListFile.nulBytesError(name: name) }
            }
        } catch {
            if !isStandardInput { close(descriptor) }
            throw error
        }
        self.state = Mutex(state)
    }

    deinit {
        state.withLock { state in
            if state.ownsDescriptor { close(state.descriptor) }
        }
    }

    /// The next line that is a URL or a problem, skipping blank and comment lines; `nil` at the end.
    func next() -> URLListFile.Line? {
        state.withLock { state in
            while true {
                guard let line = Self.nextLine(&state, name: name) else { return nil }
                if let classified = line { return classified }
            }
        }
    }

    /// The next line, classified (`nil` inside for a blank or comment line); `nil` at the end.
    private static func nextLine(_ state: inout State, name: String) -> URLListFile.Line?? {
        while true {
            let unread = state.buffer[state.start...]
            if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
                let end = newline + 1
                defer { state.start = end }
                return line(state.buffer[state.start..<newline], in: &state, name: name)
            }
            if state.atEnd, state.endsAtNUL, state.start == state.buffer.count {
                // The lines before the one with the NUL byte were read; that one ends the list.
                state.endsAtNUL = false
                state.skipping = nil
                state.lineNumber += 1
                return .some(.problem(.init(file: name, line: state.lineNumber,
                                            reason: "contains NUL bytes; the rest of the list is not read.")))
            }
            if state.atEnd {
                guard state.start < state.buffer.count || state.skipping != nil else { return nil }
                defer { state.start = state.buffer.count }
                return line(state.buffer[state.start...], in: &state, name: name)
            }
            // A line longer than the limit is counted, not kept.
            if unread.count > URLListFile.maximumLineLength {
                state.skipping = (state.skipping ?? 0) + unread.count
                state.start = state.buffer.count
            }
            do {
                try fill(&state, name: name)
            } catch {
                state.atEnd = true
                state.lineNumber += 1
                return .some(.problem(.init(file: name, line: state.lineNumber, reason: error.message)))
            }
        }
    }

    /// Classifies one line's bytes (the part of an overlong line still buffered, with what was skipped).
    private static func line(_ bytes: ArraySlice<UInt8>, in state: inout State, name: String) -> URLListFile.Line?? {
        state.lineNumber += 1
        if let skipped = state.skipping {
            state.skipping = nil
            let length = skipped + bytes.count
            let limit = URLListFile.maximumLineLength
            return .some(.problem(.init(file: name, line: state.lineNumber,
                                        reason: "line is \(length) bytes long; the limit is \(limit).")))
        }
        return .some(URLListFile.classify(bytes, line: state.lineNumber, file: name))
    }

    /// Reads one more chunk into the buffer, dropping what was used, and sets ``State/atEnd`` at the
    /// end of the file. A NUL byte ends the list before the line it is on (``State/endsAtNUL``).
    /// - Throws: ``CLIError`` naming the file when it cannot be read.
    private static func fill(_ state: inout State, name: String) throws(CLIError) {
        if state.start > 0 {
            state.buffer.removeFirst(state.start)
            state.start = 0
            // A line was read: what follows is not the start of the file.
            state.atStart = false
        }
        let old = state.buffer.count
        let descriptor = state.descriptor
        state.buffer.append(contentsOf: repeatElement(0, count: chunkSize))
        var count: Int
        repeat {
            count = state.buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, chunkSize) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            let code = errno
            state.buffer.removeLast(chunkSize)
            throw failure(name, errno: code)
        }
        state.buffer.removeLast(chunkSize - count)
        if count == 0 { state.atEnd = true }
        // A UTF-8 byte order mark, which some editors write, is not part of the first line; a pipe
        // may deliver its three bytes in more than one read.
        let mark = URLListFile.byteOrderMark
        if state.atStart, state.buffer.count >= mark.count || state.atEnd {
            state.atStart = false
            if state.buffer.starts(with: mark) { state.buffer.removeFirst(mark.count) }
        }
        if let nul = state.buffer[old...].firstIndex(of: 0) {
            let lastNewline = state.buffer[state.start..<nul].lastIndex(of: UInt8(ascii: "\n"))
            let lineStart = lastNewline.map { $0 + 1 } ?? state.start
            state.buffer.removeSubrange(lineStart...)
            state.atEnd = true
            state.endsAtNUL = true
        }
    }

    /// Reads a regular file through, refusing it when it holds a NUL byte, and goes back to its start.
    private static func refuseNULBytes(in descriptor: Int32, name: String) throws(CLIError) {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(name, errno: errno)
            }
            if count == 0 { break }
            if chunk[..<count].contains(0) { throw URLListFile.nulBytesError(name: name) }
        }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw failure(name, errno: errno) }
    }

    private static func failure(_ name: String, errno code: Int32) -> CLIError {
        CLIError(InputFile.failure(path: name, errno: code).sentence(calling: "URL file"))
    }
}
