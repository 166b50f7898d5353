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
    static func candidates(in value: String) -> [ImageCandidate] {
        let input = Array(value.unicodeScalars)
        var urls: [ImageCandidate] = []
        var position = 0
        while true {
            while position < input.count, isSpace(input[position]) || input[position] == "," { position += 1 }
            guard position < input.count else { return urls }
            let urlStart = position
            while position < input.count, !isSpace(input[position]) { position += 1 }
            var urlEnd = position
            var descriptors: [String] = []
            if input[urlEnd - 1] == "," {
                while urlEnd > urlStart, input[urlEnd - 1] == "," { urlEnd -= 1 }
            } else {
                descriptors = parseDescriptors(input, position: &position)
            }
            if urlEnd > urlStart, let descriptor = descriptor(of: descriptors) {
                var url = String.UnicodeScalarView()
                url.append(contentsOf: input[urlStart..<urlEnd])
                urls.append(ImageCandidate(url: String(url), descriptor: descriptor))
            }
        }
    }

    // MARK: - Descriptors

    /// The descriptor tokenizer: splits on whitespace up to a `,` that is not inside parentheses.
    private static func parseDescriptors(_ input: [Unicode.Scalar], position: inout Int) -> [String] {
        while position < input.count, isSpace(input[position]) { position += 1 }
        var descriptors: [String] = []
        var current = String.UnicodeScalarView()
        var inParentheses = false
        func flush() {
            if !current.isEmpty { descriptors.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        while position < input.count {
            let scalar = input[position]
            position += 1
            if inParentheses {
                current.append(scalar)
                if scalar == ")" { inParentheses = false }
            } else if isSpace(scalar) {
                flush()
            } else if scalar == "," {
                break
            } else {
                current.append(scalar)
                if scalar == "(" { inParentheses = true }
            }
        }
        flush()
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

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\u{0C}" || scalar == "\r"
    }
}
