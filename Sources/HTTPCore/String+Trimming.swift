extension Unicode.Scalar {
    /// Whether Foundation's `CharacterSet.whitespaces` holds this scalar: tab, the Unicode space
    /// separators (general category Zs) and, as Foundation's table has it, U+200B.
    public var isSpaceOrTab: Bool {
        switch value {
        case 0x09, 0x20, 0x200B: true
        case 0..<0x80: false
        default: properties.generalCategory == .spaceSeparator
        }
    }

    /// Whether Foundation's `CharacterSet.whitespacesAndNewlines` holds this scalar: tab to carriage
    /// return, U+0085, the Unicode space, line and paragraph separators (Zs, Zl, Zp) and U+200B.
    public var isWhitespaceOrNewline: Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x200B: true
        case 0..<0x80: false
        default:
            switch properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
    }
}

extension StringProtocol {
    /// The text without the leading and trailing scalars for which `isTrimmed` holds, as
    /// Foundation's `trimmingCharacters(in:)` cuts them (scalar by scalar, not by character).
    public func trimmingScalars(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
            let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }

    /// The text without the leading and trailing scalars of `set` (`trimmingCharacters(in:
    /// CharacterSet(charactersIn: set))`).
    public func trimmingScalars(in set: String) -> String {
        trimmingScalars { set.unicodeScalars.contains($0) }
    }

    /// The text without tabs and Unicode spaces around it (`trimmingCharacters(in: .whitespaces)`).
    public func trimmingWhitespace() -> String { trimmingScalars(where: \.isSpaceOrTab) }

    /// The text without whitespace and line breaks around it (`trimmingCharacters(in:
    /// .whitespacesAndNewlines)`).
    public func trimmingWhitespaceAndNewlines() -> String { trimmingScalars(where: \.isWhitespaceOrNewline) }
}
