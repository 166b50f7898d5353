import FoundationEssentials
import HTTPCore

/// A list of URLs: one per line, `#` starts a comment, blank lines are allowed. The rules for one
/// line are ``classify(_:line:file:)``, which ``URLListStream`` applies to a file as it reads it.
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

    /// Classifies the lines of `data`, naming them after `name` in problems. A UTF-8 byte order
    /// mark at the start, which some editors write, is not part of the first line.
    /// - Throws: ``CLIError`` naming the file when `data` holds NUL bytes.
    init(data: Data, name: String) throws(CLIError) {
        guard !data.contains(0) else { throw URLListFile.nulBytesError(name: name) }
        self.name = name
        var text = data[...]
        if text.starts(with: URLListFile.byteOrderMark) { text = text.dropFirst(3) }
        var lineNumber = 0
        for rawLine in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            switch URLListFile.classify(rawLine, line: lineNumber, file: name) {
            case .entry(let entry)?: entries.append(entry)
            case .problem(let problem)?: problems.append(problem)
            case nil: break
            }
        }
    }

    /// The UTF-8 byte order mark.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The error for a file of URLs that holds NUL bytes.
    static func nulBytesError(name: String) -> CLIError {
        CLIError("The URL file '\(name)' is not a text file of URLs: it contains NUL bytes.")
    }

    /// What one line of a list is.
    enum Line {
        case entry((line: Int, text: String))
        case problem(Problem)
    }

    /// Classifies line number `line` of `file` (its bytes without the line feed): a URL to preload,
    /// a problem, or `nil` for a blank or comment line.
    static func classify(_ rawLine: some Collection<UInt8>, line lineNumber: Int, file name: String) -> Line? {
        if rawLine.count > URLListFile.maximumLineLength {
            let limit = URLListFile.maximumLineLength
            return .problem(Problem(file: name, line: lineNumber,
                                    reason: "line is \(rawLine.count) bytes long; the limit is \(limit)."))
        }
        // Most lines are a URL alone, in printable ASCII: no spaces, so no comment after it either.
        if let first = rawLine.first, first != UInt8(ascii: "#"), rawLine.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return .entry((lineNumber, String(decoding: rawLine, as: UTF8.self)))
        }
        guard let decoded = String(validating: rawLine, as: UTF8.self) else {
            return .problem(Problem(file: name, line: lineNumber, reason: "line is not valid UTF-8 text."))
        }
        // A comment is a `#` at the start of the line or after white space; a `#` inside a URL is a fragment.
        var text = Substring(decoded)
        if let hash = text.indices.first(where: {
            text[$0] == "#" && ($0 == text.startIndex || text[text.index(before: $0)].isWhitespace)
        }) {
            text = text[..<hash]
        }
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if trimmed.isEmpty { return nil }
        if trimmed.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) {
            return .problem(Problem(file: name, line: lineNumber,
                                    reason: "'\(URLListFile.excerpt(trimmed))' contains spaces or control characters."))
        }
        return .entry((lineNumber, trimmed))
    }

    /// The text for standard error that reports `problems` in line order: the first
    /// ``reportedProblemLimit`` one by one as `webcache: FILE:LINE: reason`, then one line that
    /// counts the rest, so that a file of junk cannot flood the terminal.
    static func report(_ problems: [Problem]) -> String {
        let sorted = problems.sorted { $0.line < $1.line }
        var text = sorted.prefix(reportedProblemLimit).map(reportLine).joined()
        if let file = sorted.first?.file { text += remainderLine(sorted.count - reportedProblemLimit, file: file) }
        return text
    }

    /// The line of standard error that reports one problem.
    static func reportLine(_ problem: Problem) -> String {
        "webcache: \(problem)\n"
    }

    /// The line that counts the `rest` problems of `file` not reported one by one; empty when none.
    static func remainderLine(_ rest: Int, file: String) -> String {
        guard rest > 0 else { return "" }
        return "webcache: \(file): ... and \(rest) more \(rest == 1 ? "line" : "lines") that cannot be used\n"
    }

    /// A line's value for messages (``MessageText/excerpt(_:limit:)``), up to 80 characters.
    static func excerpt(_ text: String) -> String {
        MessageText.excerpt(text, limit: 80)
    }
}
