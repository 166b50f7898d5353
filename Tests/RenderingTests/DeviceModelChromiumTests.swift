import Discovery
import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import Rendering

/// The device model that static discovery chooses by, beside real Chromium emulating the same
/// device as `preload --render` and `view` do: the layout viewport a page's `<meta name=viewport>`
/// gives a phone, and the pointer and hover media features.
@Suite(.timeLimit(.minutes(3))) struct DeviceModelChromiumTests {
    static let phone = DeviceProfile.phone

    static func settings(_ device: DeviceProfile) -> RenderSettings {
        var settings = RenderSettings()
        settings.viewportWidth = device.viewportWidth
        settings.viewportHeight = device.viewportHeight
        settings.devicePixelRatio = device.devicePixelRatio
        settings.isMobile = device.usesMobileViewport
        settings.settle = .milliseconds(50)
        return settings
    }

    /// Loads `head` as a page's head in a tab emulating `device` and evaluates `expression` there.
    static func evaluate(_ expression: String, head: String, on device: DeviceProfile) async throws -> JSONValue {
        let origin = OriginServer { _ in .text("not asked") }
        try origin.start()
        defer { origin.stop() }
        let page = Data("<!doctype html><html><head>\(head)</head><body>x</body></html>".utf8)
        let tab = try await SharedChromium.browser().openTab()
        _ = try await tab.load(origin.url("page.html"), settings: settings(device), answer: { _ in
            .respond(status: 200, headers: ["Content-Type": "text/html"], body: page)
        })
        let value = try await tab.evaluate(expression)
        try await tab.close()
        return value
    }

    /// Declarations that lay a page out differently, `nil` for none: device-width, widths below and
    /// above the screen's, an initial scale alone and with a width, units and separators Chromium
    /// reads past, values it refuses, the clamps at both ends, the scale bounds and heights.
    static let declarations: [String?] = [
        nil, "width=device-width, initial-scale=1", "initial-scale=2", "initial-scale=0.5", "width=600",
        "width=320", "width=320, initial-scale=1", "width=device-width, initial-scale=0.5", "width=device-height",
        "WIDTH = 600px; initial-scale=1", "width=1200.7", "width=garbage", "width=-5", "user-scalable=no", "",
        "initial-scale=no", "initial-scale=garbage", "width=0", "initial-scale=20", "width=10001",
        // The scale bounds, and a declared height.
        "maximum-scale=0.3", "width=600, maximum-scale=0.5", "initial-scale=1, minimum-scale=2",
        "initial-scale=2, maximum-scale=1", "initial-scale=1.0, maximum-scale=0.8", "height=device-height",
        "width=device-width, height=400", "height=500, initial-scale=1",
    ]

    @Test(arguments: declarations)
    func aPhonesLayoutViewportIsChromiums(content: String?) async throws {
        let head = content.map { #"<meta name="viewport" content="\#($0)">"# } ?? ""
        let chromium = try await Self.evaluate(
            #"document.documentElement.clientWidth + "x" + document.documentElement.clientHeight"#,
            head: head, on: Self.phone)
        let laidOut = Self.phone.laidOut(by: content.map(ViewportDeclaration.init(content:)))
        #expect(chromium.stringValue == "\(laidOut.viewportWidth)x\(laidOut.viewportHeight)", "\(content ?? "none")")
    }

    /// Headless Chromium has no pointer of its own: the browser is started with a desktop's mouse,
    /// and a mobile tab emulates a touch screen, so that `hover` and `pointer` rules apply as the
    /// device profile says.
    @Test(arguments: [DeviceProfile.desktop, DeviceProfile.phone])
    func pointerAndHoverAreTheDevicesOwn(device: DeviceProfile) async throws {
        let queries = [
            "(hover: hover)", "(hover: none)", "(any-hover: hover)", "(pointer: fine)", "(pointer: coarse)",
            "(pointer: none)", "(any-pointer: fine)", "(any-pointer: coarse)",
        ]
        let list = queries.map { "'\($0)'" }.joined(separator: ",")
        let chromium = try await Self.evaluate("[\(list)].map(q => matchMedia(q).matches).join()",
                                               head: "", on: device)
        let model = queries.map { String(MediaQueryList($0).matches(device)) }.joined(separator: ",")
        #expect(chromium.stringValue == model, "\(device.summary)")
    }
}
