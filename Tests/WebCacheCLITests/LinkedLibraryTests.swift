import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The libraries the executable loads: FoundationEssentials, not the whole of Foundation, whose
/// libraries (with ICU) cost a start a third more instructions; Foundation's conversion of
/// internationalised host names, loaded when a URL needs it; and libcurl, libmicrohttpd and
/// libcrypto, loaded when first needed (`LibraryLoadingTests`).
@Suite(.timeLimit(.minutes(5)))
struct LinkedLibraryTests {
    /// The libraries of swift-corelibs-foundation beyond FoundationEssentials.
    private static let fullFoundation = [
        "libFoundation.so", "libFoundationNetworking.so", "libFoundationInternationalization.so",
        "lib_FoundationICU.so", "libFoundationXML.so",
    ]

    /// The C libraries the executable loads when it needs them, with the libraries they bring.
    private static let loadedWhenNeeded = ["libcurl.so.4", "libmicrohttpd.so.12", "libcrypto.so.3", "libgnutls.so.30"]

    /// What the dynamic linker loads for `--version` (`LD_TRACE_LOADED_OBJECTS=1`, as `ldd` asks
    /// it): FoundationEssentials and none of the rest of Foundation, nor the libraries loaded when
    /// needed.
    @Test func theExecutableLoadsFoundationEssentialsOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let webcache = WebcacheRunner(home: folder, extraEnvironment: ["LD_TRACE_LOADED_OBJECTS": "1"])

        let result = try await webcache.run(["--version"])

        #expect(result.exitCode == 0)
        let libraries = result.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first.map(String.init)
        }
        #expect(libraries.contains { $0.hasSuffix("libFoundationEssentials.so") }, "\(libraries)")
        for library in Self.fullFoundation + Self.loadedWhenNeeded {
            #expect(!libraries.contains { $0.hasSuffix(library) }, "the executable loads \(library)")
        }
    }

    /// A URL whose host is an internationalised name reaches the origin under its punycode name,
    /// as with the whole of Foundation: the conversion is loaded when the URL is read.
    @Test func anInternationalisedHostIsRequestedInPunycode() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = OriginServer { request in
            OriginResponse(body: .bytes(Data("host \(request.headers["Host"] ?? "")".utf8)))
        }
        try server.start()
        defer { server.stop() }
        let port = server.port
        let webcache = WebcacheRunner(home: folder)

        let result = try await webcache.run([
            "get", "http://bücher.test:\(port)/page", "--resolve", "xn--bcher-kva.test:\(port):127.0.0.1",
            "--store", folder.path("store.sqlite"),
        ])

        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "host xn--bcher-kva.test:\(port)")
    }
}
