import Foundation
import HTTPCore

/// A list of URLs read from a file: one per line, `#` starts a comment, blank lines are allowed.
///
/// Lines that cannot be used are not fatal: each becomes a ``Problem`` that names the file and the
/// line, so a run can report them as `FILE:LINE: reason`, skip them and go on with the rest. A file
/// that holds NUL bytes is no list of URLs at all, and is refused whole.
struct URLListFile: Sendable {
    /// A line that was skipped, and why.
    struct Problem: Sendable, Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var reason: String
        var description: String { "\(file):\(line): \(reason)" }
    }

    /// The usable entries, in file order, with the line each came from. Relative references are kept
    /// as written; the caller resolves them against the instance URL.
    var entries: [(line: Int, text: String)] = []
    var problems: [Problem] = []
    /// The file's name as problems give it.
    let name: String

    /// Lines longer than this are refused rather than held in memory.
    static let maximumLineLength = 8192

    /// How many problems ``report(_:)`` lists one by one.
    static let reportedProblemLimit = 20

    /// The path that names standard input, as for curl and wget.
    static let standardInputPath = "-"

    /// Reads and classifies the lines of the file at `path`, or of standard input for `-`.
    ///
    /// The file is read with plain reads to its end, so a pipe, a FIFO, `/dev/stdin` or a process
    /// substitution (`<(…)`) works as well as a regular file.
    /// - Throws: ``CLIError`` naming the file when it does not exist, is a directory, cannot be read,
    ///   or holds NUL bytes.
    init(path: String) throws(CLIError) {
        let name = path == URLListFile.standardInputPath ? "<stdin>" : path
        // Reading stops at the first NUL byte: such a file is refused whatever follows.
        let isBinary = { (chunk: Data) in chunk.contains(0) }
        let data: Data
        do throws(InputFile.Error) {
            data = path == URLListFile.standardInputPath
                ? try InputFile.read(descriptor: STDIN_FILENO, name: name, until: isBinary)
                : try InputFile.read(path: path, until: isBinary)
        } catch {
            throw CLIError(error.sentence(calling: "URL file"))
        }
        try self.init(data: data, name: name)
    }

    /// Classifies the lines of `data`, naming them after `name` in problems. A UTF-8 byte order
    /// mark at the start, which some editors write, is not part of the first line.
    /// - Throws: ``CLIError`` naming the file when `data` holds NUL bytes.
    init(data: Data, name: String) throws(CLIError) {
        guard !data.contains(0) else {
            throw CLIError("The URL file '\(name)' is not a text file of URLs: it contains NUL bytes.")
        }
        self.name = name
        var text = data[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        var lineNumber = 0
        for rawLine in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if rawLine.count > URLListFile.maximumLineLength {
                problems.append(Problem(file: name, line: lineNumber,
                                        reason: "line is \(rawLine.count) bytes long; the limit is \(URLListFile.maximumLineLength)"))
                continue
            }
            guard let decoded = String(validating: rawLine, as: UTF8.self) else {
                problems.append(Problem(file: name, line: lineNumber, reason: "line is not valid UTF-8 text"))
                continue
            }
            // A comment is a `#` at the start of the line or after white space; a `#` inside a URL is a fragment.
            var text = Substring(decoded)
            if let hash = text.indices.first(where: {
                text[$0] == "#" && ($0 == text.startIndex || text[text.index(before: $0)].isWhitespace)
            }) {
                text = text[..<hash]
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            if trimmed.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) {
                problems.append(Problem(file: name, line: lineNumber,
                                        reason: "'\(URLListFile.excerpt(trimmed))' contains spaces or control characters"))
                continue
            }
            entries.append((lineNumber, trimmed))
        }
    }

    /// The text for standard error that reports `problems` in line order: the first
    /// ``reportedProblemLimit`` one by one as `webcache: FILE:LINE: reason`, then one line that
    /// counts the rest, so that a file of junk cannot flood the terminal.
    static func report(_ problems: [Problem]) -> String {
        let sorted = problems.sorted { $0.line < $1.line }
        var text = sorted.prefix(reportedProblemLimit).map { "webcache: \($0)\n" }.joined()
        let rest = sorted.count - reportedProblemLimit
        if rest > 0, let file = sorted.first?.file {
            text += "webcache: \(file): ... and \(rest) more \(rest == 1 ? "line" : "lines") that cannot be used\n"
        }
        return text
    }

    /// A line's value for messages (``MessageText/excerpt(_:limit:)``), up to 80 characters.
    static func excerpt(_ text: String) -> String {
        MessageText.excerpt(text, limit: 80)
    }
}
