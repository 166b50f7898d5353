/// What a page's `<meta name=viewport content="…">` asks of a mobile browser's layout viewport: its
/// `width`, `height` and scales, read as Chromium reads them (`user-scalable` and the rest do not
/// change the layout).
///
/// A phone or tablet lays a page out in a layout viewport that the page chooses: `device-width` (the
/// screen's width), a width in CSS pixels, or, for a page that declares nothing, 980 pixels, so that
/// a page made for desktops is laid out as on one and shown zoomed out. Media queries, `vw` units and
/// `sizes` are of that viewport, so a mobile device's choices depend on it
/// (``DeviceProfile/laidOut(by:)``). The last such `<meta>` of the document is the one that applies.
public struct ViewportDeclaration: Sendable, Hashable {
    /// A `width` or `height` value.
    public enum Width: Sendable, Hashable {
        case deviceWidth
        case deviceHeight
        /// CSS pixels.
        case pixels(Double)
    }

    /// The declared width; `nil` when absent or not a width.
    public var width: Width?
    /// The declared height; `nil` when absent or not a height.
    public var height: Width?
    /// The declared `initial-scale`, `minimum-scale` and `maximum-scale`; `nil` when absent.
    public var initialScale: Double?
    public var minimumScale: Double?
    public var maximumScale: Double?

    /// A declaration of these values.
    public init(
        width: Width? = nil, height: Width? = nil, initialScale: Double? = nil, minimumScale: Double? = nil,
        maximumScale: Double? = nil
    ) {
        self.width = width
        self.height = height
        self.initialScale = initialScale
        self.minimumScale = minimumScale
        self.maximumScale = maximumScale
    }

    /// The declaration a `content` attribute makes: `key=value` pairs separated by commas, semicolons
    /// or whitespace, keys in any case, numbers read as far as they go (`600px` is 600).
    public init(content: String) {
        self.init()
        for (key, value) in Self.pairs(content) {
            switch key.lowercased() {
            case "width":
                width = Self.width(value)
            case "height":
                height = Self.width(value)
            case "initial-scale":
                initialScale = Self.scale(value)
            case "minimum-scale":
                minimumScale = Self.scale(value)
            case "maximum-scale":
                maximumScale = Self.scale(value)
            default:
                break
            }
        }
    }

    /// The width Chromium falls back on when a page declares neither a width nor a scale.
    public static let fallbackWidth = 980.0

    /// The layout viewport in CSS pixels on a screen `screenWidth` by `screenHeight` pixels, as
    /// Chromium 156 lays it out: the declared width, at least the screen's width at the initial scale
    /// (kept between the minimum and maximum scales); the fallback width (or the screen's, when
    /// wider) when neither is declared; at least the screen's width at the maximum scale (5 unless
    /// declared), at most 10,000. As tall as the declared height (at least the screen's height at the
    /// initial scale), else as the screen's aspect makes it.
    public func layout(screenWidth: Int, screenHeight: Int) -> (width: Double, height: Double) {
        let screen = (width: Double(screenWidth), height: Double(screenHeight))
        func pixels(_ value: Width?) -> Double? {
            switch value {
            case .deviceWidth: screen.width
            case .deviceHeight: screen.height
            case .pixels(let pixels): min(max(pixels, 1), 10_000)
            case nil: nil
            }
        }
        let clamp = { (scale: Double) in min(max(scale, 0.25), 5) }
        let minimum = minimumScale.map(clamp) ?? 0.25
        let maximum = maximumScale.map(clamp) ?? 5
        let scale = initialScale.map { min(max(clamp($0), minimum), maximum) }
        let declared = pixels(width)
        let scaled = scale.map { screen.width / $0 }
        var layoutWidth: Double = switch (declared, scaled) {
        case (nil, nil): max(Self.fallbackWidth, screen.width)
        case (let declared?, nil): declared
        case (nil, let scaled?): scaled
        case (let declared?, let scaled?): max(declared, scaled)
        }
        layoutWidth = min(max(layoutWidth, screen.width / maximum), 10_000)
        let layoutHeight = pixels(height).map { declared in max(declared, scale.map { screen.height / $0 } ?? 0) }
            ?? layoutWidth * screen.height / screen.width
        return (layoutWidth, layoutHeight)
    }

    // MARK: - Reading

    /// The `key=value` pairs of `content`, as Chromium's meta element splits them.
    private static func pairs(_ content: String) -> [(key: Substring, value: Substring)] {
        let isSeparator: (Character) -> Bool = { " \t\n\r=,;".contains($0) }
        var pairs: [(Substring, Substring)] = []
        var index = content.startIndex
        let end = content.endIndex
        while index < end {
            while index < end, isSeparator(content[index]) { index = content.index(after: index) }
            let keyStart = index
            while index < end, !isSeparator(content[index]) { index = content.index(after: index) }
            let key = content[keyStart..<index]
            // The value follows an `=`, if one comes before the next `,` or `;`.
            while index < end, !"=,;".contains(content[index]) { index = content.index(after: index) }
            while index < end, isSeparator(content[index]), !",;".contains(content[index]) {
                index = content.index(after: index)
            }
            let valueStart = index
            while index < end, !isSeparator(content[index]) { index = content.index(after: index) }
            if !key.isEmpty { pairs.append((key, content[valueStart..<index])) }
        }
        return pairs
    }

    private static func width(_ value: Substring) -> Width? {
        switch value.lowercased() {
        case "device-width": return .deviceWidth
        case "device-height": return .deviceHeight
        default:
            guard let number = leadingNumber(value), number >= 0 else { return nil }
            return .pixels(number)
        }
    }

    private static func scale(_ value: Substring) -> Double? {
        switch value.lowercased() {
        case "yes": return 1
        case "no": return 0.1
        case "device-width", "device-height": return 10
        default:
            // A value that is no number counts as 0 (the smallest scale), as in Chromium.
            let number = leadingNumber(value) ?? 0
            return number < 0 ? nil : number
        }
    }

    /// The number `value` starts with, read as a CSS number (`600px` is 600, `.5e1` is 5), if it
    /// starts with one.
    private static func leadingNumber(_ value: Substring) -> Double? {
        switch CSSValueTokenizer.tokens(String(value)).first {
        case .number(let number)?, .percentage(let number)?, .dimension(let number, _)?: number
        default: nil
        }
    }
}
