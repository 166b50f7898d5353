import Testing

@testable import Discovery

/// `<meta name=viewport>` as a mobile browser reads it, and the layout viewport it gives a device.
/// RenderingTests' `DeviceModelChromiumTests` compares the same layouts with real Chromium's.
struct ViewportDeclarationTests {
    @Test func heightsAndScaleBoundsAreRead() {
        let declaration = ViewportDeclaration(content: "height=device-height, minimum-scale=0.5, maximum-scale=yes")
        #expect(declaration == ViewportDeclaration(height: .deviceHeight, minimumScale: 0.5, maximumScale: 1))
        #expect(ViewportDeclaration(content: "height=500px").height == .pixels(500))
    }

    /// (content, width, initial scale) as read.
    static let readings: [(String, ViewportDeclaration.Width?, Double?)] = [
        ("width=device-width, initial-scale=1", .deviceWidth, 1),
        ("WIDTH = 600px; Initial-Scale=.5e1", .pixels(600), 5),
        ("width=600 initial-scale=1", .pixels(600), 1),
        ("width=garbage", nil, nil),
        ("width=-5", nil, nil),
        ("width=+1200.7", .pixels(1200.7), nil),
        ("initial-scale=no", nil, 0.1),
        ("initial-scale=yes", nil, 1),
        ("initial-scale=garbage", nil, 0),
        ("user-scalable=no, maximum-scale=1", nil, nil),
        ("width, initial-scale=2", nil, 2),
        ("", nil, nil),
    ]

    @Test(arguments: readings)
    func readsTheContentAsChromiumSplitsIt(_ row: (String, ViewportDeclaration.Width?, Double?)) {
        let declaration = ViewportDeclaration(content: row.0)
        #expect(declaration.width == row.1, "\(row.0)")
        #expect(declaration.initialScale == row.2, "\(row.0)")
    }

    @Test func aPhoneLaysOutAPageThatDeclaresNothing980PixelsWideAndAsTallAsItsScreensAspect() {
        let phone = DeviceProfile.phone.laidOut(by: nil)
        #expect(phone.viewportWidth == 980 && phone.viewportHeight == 2120)
        #expect(phone.screenWidth == 390 && phone.screenHeight == 844)
        #expect(phone.devicePixelRatio == 3)
        #expect(MediaQueryList("(width: 980px) and (device-width: 390px)").matches(phone))
        // A screen wider than 980 pixels lays such a page out at its own width.
        var wide = DeviceProfile.tablet
        (wide.viewportWidth, wide.viewportHeight) = (1180, 820)
        #expect(wide.laidOut(by: nil).viewportWidth == 1180)
    }

    @Test func aDesktopIgnoresTheDeclaration() {
        let declared = ViewportDeclaration(content: "width=600")
        #expect(DeviceProfile.desktop.laidOut(by: declared) == .desktop)
        #expect(DeviceProfile.desktop.laidOut(by: nil) == .desktop)
    }

    /// A page laid out by a phone is trusted for the phone only when it was laid out by these rules.
    @Test func theMobileRulesAreInTheFingerprint() {
        #expect(DeviceProfile.phone.fingerprint.hasSuffix("mobile-viewport-rules"))
        #expect(!DeviceProfile.desktop.fingerprint.contains("mobile"))
    }
}
