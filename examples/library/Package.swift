// swift-tools-version:6.2
import PackageDescription

// The README's library example as a package of its own that depends on webcache by path, as an app
// embeds it. The tests build it without warnings and run it against the example site.
let package = Package(
    name: "webcache-library-example",
    dependencies: [.package(name: "webcache", path: "../..")],
    targets: [
        .executableTarget(
            name: "LibraryExample",
            dependencies: [.product(name: "WebCache", package: "webcache")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
