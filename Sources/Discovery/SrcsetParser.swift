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
    /// It reads the value's UTF-8 in place: every character the algorithm splits on is ASCII, and
    /// only the URLs become strings.
    static func candidates(in value: String) -> [ImageCandidate] {
        var value = value
        return value.withUTF8 { input in
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
                var descriptors = Descriptors()
                if input[urlEnd - 1] == UInt8(ascii: ",") {
                    while urlEnd > urlStart, input[urlEnd - 1] == UInt8(ascii: ",") { urlEnd -= 1 }
                } else {
                    parseDescriptors(input, position: &position, into: &descriptors)
                }
                if urlEnd > urlStart, let descriptor = descriptors.result {
                    let url = String(decoding: UnsafeBufferPointer(rebasing: input[urlStart..<urlEnd]), as: UTF8.self)
                    // Room for a few at once: a source set of two or three would grow twice.
                    if urls.isEmpty { urls.reserveCapacity(4) }
                    urls.append(ImageCandidate(url: url, descriptor: descriptor))
                }
            }
        }
    }

    // MARK: - Descriptors

    /// The descriptor tokenizer: splits on whitespace up to a `,` that is not inside parentheses,
    /// and checks each descriptor as it ends.
    private static func parseDescriptors(
        _ input: UnsafeBufferPointer<UInt8>, position: inout Int, into descriptors: inout Descriptors
    ) {
        while position < input.count, isSpace(input[position]) { position += 1 }
        var start = position
        var inParentheses = false
        while position < input.count {
            let byte = input[position]
            position += 1
            if inParentheses {
                if byte == UInt8(ascii: ")") { inParentheses = false }
            } else if isSpace(byte) {
                descriptors.add(input, start, position - 1)
                start = position
            } else if byte == UInt8(ascii: ",") {
                descriptors.add(input, start, position - 1)
                return
            } else if byte == UInt8(ascii: "(") {
                inParentheses = true
            }
        }
        descriptors.add(input, start, position)
    }

    /// The descriptor checks of the algorithm's step 13, made as each descriptor is read: at most
    /// one of `w`, `x`, `h` each, `h` only with `w`, never `w` with `x`, numbers well formed.
    private struct Descriptors {
        var width: Int?
        var density: Double?
        var height = false
        var isValid = true

        /// Checks the descriptor `input[start..<end]` (nothing when it is empty).
        mutating func add(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
            guard isValid, end > start else { return }
            let number = UnsafeBufferPointer(rebasing: input[start..<(end - 1)])
            switch input[end - 1] {
            case UInt8(ascii: "w"):
                guard width == nil, density == nil, let value = positiveInteger(number) else { return invalidate() }
                width = value
            case UInt8(ascii: "h"):
                guard !height, density == nil, positiveInteger(number) != nil else { return invalidate() }
                height = true
            case UInt8(ascii: "x"):
                guard width == nil, density == nil, !height, let value = Self.density(number), value >= 0 else {
                    return invalidate()
                }
                density = value
            default:
                invalidate()
            }
        }

        /// The candidate's descriptor; `nil` when the checks failed.
        var result: ImageCandidate.Descriptor? {
            guard isValid, !height || width != nil else { return nil }
            if let width { return .width(width) }
            if let density { return .density(density) }
            return ImageCandidate.Descriptor.none
        }

        private mutating func invalidate() {
            isValid = false
        }

        /// The value of ASCII digits that are not all zero (`Int.max` when too large); `nil` otherwise.
        private func positiveInteger(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
            guard !digits.isEmpty, digits.allSatisfy(isDigit), digits.contains(where: { $0 != UInt8(ascii: "0") })
            else { return nil }
            var value = 0
            for digit in digits {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                if overflowTimes || overflowSum { return Int.max }
                value = sum
            }
            return value
        }

        /// A density written as a valid floating-point number (HTML §2.3.4.3): an optional `-`, digits,
        /// a `.` and digits, or both, then optionally `e` or `E`, an optional sign and digits. Browsers
        /// drop a candidate whose density is written otherwise (`1.x`, `+1x`).
        private static func density(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            // Up to 15 digits alone are exact in a Double: the common `1x`, `2x` need no parser.
            if !text.isEmpty, text.count <= 15, text.allSatisfy(isDigit) {
                return Double(text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            }
            var index = 0
            func digits() -> Int {
                let start = index
                while index < text.count, isDigit(text[index]) { index += 1 }
                return index - start
            }
            if index < text.count, text[index] == UInt8(ascii: "-") { index += 1 }
            let integerDigits = digits()
            if index < text.count, text[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return nil }
            } else if integerDigits == 0 {
                return nil
            }
            if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                    index += 1
                }
                guard digits() > 0 else { return nil }
            }
            guard index == text.count else { return nil }
            return Double(String(decoding: text, as: UTF8.self))
        }

        private func isDigit(_ byte: UInt8) -> Bool { Self.isDigit(byte) }

        private static func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
