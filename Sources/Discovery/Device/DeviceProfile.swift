/// The device a preload fetches for: its viewport, pixel density, the image and font formats it
/// decodes and the user preferences media queries ask about.
///
/// Static discovery chooses from `srcset`, `<picture>`, `image-set()`, `@font-face` and icons what
/// a browser on this device would request; `preload --render` emulates the same metrics in
/// Chromium. The default is a desktop browser window, as the gateway's clients are.
public struct DeviceProfile: Sendable, Hashable {
    /// How the user prefers colours (`prefers-color-scheme`).
    public enum ColorScheme: String, Sendable, Hashable, CaseIterable {
        case light, dark
    }

    /// The accuracy of the primary pointing device (`pointer`, `hover`: Media Queries Level 4 §7).
    public enum Pointer: String, Sendable, Hashable, CaseIterable {
        /// A mouse or trackpad, which can hover.
        case fine
        /// A finger on a touch screen, which cannot.
        case coarse
    }

    /// The layout viewport's width in CSS pixels.
    public var viewportWidth: Int
    /// The layout viewport's height in CSS pixels.
    public var viewportHeight: Int
    /// Device pixels per CSS pixel.
    public var devicePixelRatio: Double
    /// Image media types the device decodes, as `type` attributes name them (`image/webp`).
    public var imageTypes: Set<String>
    /// Font formats the device loads, as `format()` names them (`woff2`).
    public var fontFormats: Set<String>
    /// `prefers-color-scheme`.
    public var colorScheme: ColorScheme
    /// `prefers-reduced-motion: reduce` when `true`.
    public var prefersReducedMotion: Bool
    /// The primary pointing device; tablets and phones have a coarse one that cannot hover.
    public var pointer: Pointer
    /// The screen, when a page's layout viewport is not its size (``laidOut(by:)``).
    private var screen: Screen?

    private struct Screen: Sendable, Hashable {
        var width: Int
        var height: Int
    }

    /// The screen's width in CSS pixels, which `device-width` asks about: the viewport's, unless a
    /// page's layout viewport differs.
    public var screenWidth: Int { screen?.width ?? viewportWidth }
    /// The screen's height in CSS pixels, which `device-height` asks about.
    public var screenHeight: Int { screen?.height ?? viewportHeight }

    /// The user preference media features the profile sets, each with the keyword it matches (Media
    /// Queries Level 5 §11): what static choices evaluate and what a rendering tab emulates.
    public var preferenceFeatures: [(name: String, keyword: String)] {
        [
            ("prefers-color-scheme", colorScheme.rawValue),
            ("prefers-reduced-motion", prefersReducedMotion ? "reduce" : "no-preference"),
        ]
    }

    /// Whether pages are laid out by the mobile viewport rules, as on a phone or tablet (a device with
    /// a coarse pointer): in the layout viewport their `<meta name=viewport>` declares, 980 pixels wide
    /// when they declare none (``ViewportDeclaration``). A desktop browser's layout viewport is its window.
    public var usesMobileViewport: Bool { pointer == .coarse }

    /// The device as a page with `declaration` (its last `<meta name=viewport>`, `nil` when it has
    /// none so far) is laid out on it: for a mobile device, its viewport is the page's layout
    /// viewport (``ViewportDeclaration/layout(screenWidth:screenHeight:)``), and its screen stays;
    /// otherwise unchanged.
    public func laidOut(by declaration: ViewportDeclaration?) -> DeviceProfile {
        guard usesMobileViewport else { return self }
        let (width, height) = (declaration ?? ViewportDeclaration())
            .layout(screenWidth: screenWidth, screenHeight: screenHeight)
        var device = self
        device.screen = Screen(width: screenWidth, height: screenHeight)
        device.viewportWidth = max(1, Int(width))
        device.viewportHeight = max(1, Int(height))
        return device
    }

    /// A device with these metrics and Chromium's formats.
    public init(
        viewportWidth: Int, viewportHeight: Int, devicePixelRatio: Double,
        imageTypes: Set<String> = DeviceProfile.chromiumImageTypes,
        fontFormats: Set<String> = DeviceProfile.chromiumFontFormats,
        colorScheme: ColorScheme = .light, prefersReducedMotion: Bool = false, pointer: Pointer = .fine
    ) {
        precondition(viewportWidth > 0 && viewportHeight > 0 && devicePixelRatio > 0,
                     "A device's viewport and pixel ratio must be positive.")
        self.viewportWidth = viewportWidth
        self.viewportHeight = viewportHeight
        self.devicePixelRatio = devicePixelRatio
        self.imageTypes = imageTypes
        self.fontFormats = fontFormats
        self.colorScheme = colorScheme
        self.prefersReducedMotion = prefersReducedMotion
        self.pointer = pointer
    }

    /// Every field in one text, in a stable order (sets sorted), so that two profiles have the same
    /// text exactly when they are equal: a preload trusts a page's record only for the device it was
    /// made for. A field added to the profile is added here too.
    public var fingerprint: String {
        "viewport \(viewportWidth)x\(viewportHeight) ratio \(devicePixelRatio) images \(imageTypes.sorted()) "
            + "fonts \(fontFormats.sorted()) scheme \(colorScheme.rawValue) reduced-motion \(prefersReducedMotion) "
            + "pointer \(pointer.rawValue)" + (usesMobileViewport ? " mobile-viewport-rules" : "")
    }

    /// The image types Chromium decodes (JPEG XL too: Chromium 156 decodes it and asks for it first).
    public static let chromiumImageTypes: Set<String> = [
        "image/jxl", "image/avif", "image/webp", "image/png", "image/jpeg", "image/jpg", "image/gif", "image/svg+xml",
        "image/x-icon", "image/vnd.microsoft.icon", "image/bmp",
    ]
    /// The font formats Chromium loads.
    public static let chromiumFontFormats: Set<String> = ["woff2", "woff", "truetype", "opentype", "collection"]

    /// A desktop browser window: 1280×800 at 1x (the default).
    public static let desktop = DeviceProfile(viewportWidth: 1280, viewportHeight: 800, devicePixelRatio: 1)
    /// A laptop with a high-density screen: 1440×900 at 2x.
    public static let laptop = DeviceProfile(viewportWidth: 1440, viewportHeight: 900, devicePixelRatio: 2)
    /// A tablet held upright: 820×1180 at 2x.
    public static let tablet = DeviceProfile(viewportWidth: 820, viewportHeight: 1180, devicePixelRatio: 2, pointer: .coarse)
    /// A phone held upright: 390×844 at 3x.
    public static let phone = DeviceProfile(viewportWidth: 390, viewportHeight: 844, devicePixelRatio: 3, pointer: .coarse)

    /// The presets by the names the command line takes, in the order its help lists them.
    public static let presets: [(name: String, profile: DeviceProfile)] = [
        ("desktop", .desktop), ("laptop", .laptop), ("tablet", .tablet), ("phone", .phone),
    ]
}
