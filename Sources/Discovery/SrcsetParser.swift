/// Parses `srcset` and `imagesrcset` values (HTML §4.8.4.3.10, "parse a srcset attribute").
///
/// URLs may contain commas (`a,b.jpg 1x`); a URL that ends in commas ends its candidate. Candidates
/// whose descriptors are invalid (`2q`, two densities, `w` with `x`…) are dropped, as browsers do.
enum SrcsetParser {
    /// The candidate URLs of `value`, in order, still relative and undecoded.
    static func urls(in value: String) -> [String] {
        candidates(in: value).map(\.url)
    }

    /// The candidates of `value`, in order, with their descriptors; URLs still relative and undecoded.
    ///
    /// It reads the value's UTF-8: every character the algorithm splits on is ASCII.
    static func candidates(in value: String) -> [ImageCandidate] {
        let input = Array(value.utf8)
        var urls: [ImageCandidate] = []
        var position = 0
        while true {
            while position < input.count, isSpace(input[position]) || input[position] == UInt8(ascii: ",") {
                position += 1
            }
            guard position < input.count else { return urls }
            let urlStart = position
            while position < input.count, !isSpace(input[position]) { position += 1 }
            var urlEnd = position
            var descriptors: [String] = []
            if input[urlEnd - 1] == UInt8(ascii: ",") {
                while urlEnd > urlStart, input[urlEnd - 1] == UInt8(ascii: ",") { urlEnd -= 1 }
            } else {
                descriptors = parseDescriptors(input, position: &position)
            }
            if urlEnd > urlStart, let descriptor = descriptor(of: descriptors) {
                urls.append(ImageCandidate(url: String(decoding: input[urlStart..<urlEnd], as: UTF8.self),
                                           descriptor: descriptor))
            }
        }
    }

    // MARK: - Descriptors

    /// The descriptor tokenizer: splits on whitespace up to a `,` that is not inside parentheses.
    private static func parseDescriptors(_ input: [UInt8], position: inout Int) -> [String] {
        while position < input.count, isSpace(input[position]) { position += 1 }
        var descriptors: [String] = []
        var start = position
        var inParentheses = false
        func flush(to end: Int) {
            if end > start { descriptors.append(String(decoding: input[start..<end], as: UTF8.self)) }
        }
        while position < input.count {
            let byte = input[position]
            position += 1
            if inParentheses {
                if byte == UInt8(ascii: ")") { inParentheses = false }
            } else if isSpace(byte) {
                flush(to: position - 1)
                start = position
            } else if byte == UInt8(ascii: ",") {
                flush(to: position - 1)
                return descriptors
            } else if byte == UInt8(ascii: "(") {
                inParentheses = true
            }
        }
        flush(to: position)
        return descriptors
    }

    /// The descriptor checks of the algorithm's step 13: at most one of `w`, `x`, `h` each, `h`
    /// only with `w`, never `w` with `x`, numbers well formed; `nil` when they fail.
    private static func descriptor(of descriptors: [String]) -> ImageCandidate.Descriptor? {
        var width: Int?
        var density: Double?
        var height = false
        for descriptor in descriptors {
            let number = descriptor.dropLast()
            switch descriptor.last {
            case "w":
                guard width == nil, density == nil, isPositiveInteger(number) else { return nil }
                width = Int(number) ?? Int.max
            case "h":
                guard !height, density == nil, isPositiveInteger(number) else { return nil }
                height = true
            case "x":
                guard width == nil, density == nil, !height, let value = Double(number), value >= 0,
                    number.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) })
                else { return nil }
                density = value
            default:
                return nil
            }
        }
        if height && width == nil { return nil }
        if let width { return .width(width) }
        if let density { return .density(density) }
        return ImageCandidate.Descriptor.none
    }

    private static func isPositiveInteger(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } && text.contains { $0 != "0" }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
