import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport
@testable import LocalOrigin

@Suite struct StaticSiteTests {
    /// The site's root and, beside it, the file the traversal tests reach for; removed with the test.
    let folder: TemporaryFolder
    let root: URL
    let site: StaticSite

    init() throws {
        folder = try TemporaryFolder(prefix: "static-site")
        root = folder.url.appending(path: "site")
        try FileManager.default.createDirectory(at: root.appending(path: "css"), withIntermediateDirectories: true)
        try Data("<html>home</html>".utf8).write(to: root.appending(path: "index.html"))
        try Data("body{}".utf8).write(to: root.appending(path: "css/site.css"))
        try folder.write(Data("secret".utf8), to: "outside.txt")
        site = StaticSite(root: root)
    }

    private func get(_ target: String, _ headers: HTTPHeaders = [:], method: HTTPMethod = .get) -> OriginResponse {
        site.respond(to: OriginRequest(method: method, target: target, headers: headers))
    }

    private func content(_ response: OriginResponse) -> String {
        if case .bytes(let data) = response.body { return String(decoding: data, as: UTF8.self) }
        return "<not bytes>"
    }

    @Test func servesFilesWithTypesValidatorsAndCacheControl() throws {
        let home = get("/")
        #expect(home.status == 200)
        #expect(content(home) == "<html>home</html>")
        #expect(home.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(home.headers["Cache-Control"] == "no-cache")
        #expect(home.headers["ETag"]?.hasPrefix("\"") == true)
        #expect(home.headers["Last-Modified"].flatMap(HTTPDate.parse) != nil)

        let css = get("/css/site.css?v=1")
        #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(css.headers["Cache-Control"] == "public, max-age=31536000")
        #expect(css.headers["ETag"] != home.headers["ETag"])
    }

    @Test func cacheControlRulesCanBeChanged() {
        var custom = site
        custom.cacheControlByPath["/css/site.css"] = "max-age=5"
        custom.cacheControlByExtension["html"] = "max-age=30"
        let css = custom.respond(to: OriginRequest(method: .get, target: "/css/site.css"))
        let html = custom.respond(to: OriginRequest(method: .get, target: "/index.html"))
        #expect(css.headers["Cache-Control"] == "max-age=5")
        #expect(html.headers["Cache-Control"] == "max-age=30")
    }

    @Test func etagChangesWhenTheContentChanges() throws {
        let before = try #require(get("/css/site.css").headers["ETag"])
        try Data("body{color:red}".utf8).write(to: root.appending(path: "css/site.css"))
        let after = try #require(get("/css/site.css").headers["ETag"])
        #expect(before != after)
    }

    @Test func conditionalRequestsGet304AndIfNoneMatchWins() throws {
        let first = get("/css/site.css")
        let etag = try #require(first.headers["ETag"])
        let modified = try #require(first.headers["Last-Modified"])
        #expect(get("/css/site.css", ["If-None-Match": etag]).status == 304)
        #expect(get("/css/site.css", ["If-None-Match": "\"other\", \(etag)"]).status == 304)
        #expect(get("/css/site.css", ["If-Modified-Since": modified]).status == 304)
        // A non-matching If-None-Match wins over a matching If-Modified-Since.
        #expect(get("/css/site.css", ["If-None-Match": "\"other\"", "If-Modified-Since": modified]).status == 200)
        #expect(get("/css/site.css", ["If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"]).status == 200)
        let notModified = get("/css/site.css", ["If-None-Match": etag])
        #expect(notModified.headers["ETag"] == etag)
        #expect(content(notModified).isEmpty)
    }

    @Test func missingFilesGet404AndOtherMethods405() {
        #expect(get("/nope.css").status == 404)
        #expect(get("/", method: .post).status == 405)
        #expect(get("/", method: .head).status == 200)
    }

    @Test(arguments: ["/../outside.txt", "/css/../../outside.txt", "/%2e%2e/outside.txt", "/css/%2E%2E/%2e%2e/x"])
    func pathTraversalIsRefused(target: String) {
        #expect(get(target).status == 403)
    }

    @Test func servesOverTheNetworkWithHeadAnd304() throws {
        let server = OriginServer(handler: site.handler)
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET /css/site.css HTTP/1.1\r\nHost: h\r\n\r\n")
        let full = try client.readResponse()
        #expect(String(decoding: full.body, as: UTF8.self) == "body{}")
        let etag = try #require(full.headers["ETag"])
        try client.send("HEAD /css/site.css HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "6")
        try client.send("GET /css/site.css HTTP/1.1\r\nHost: h\r\nIf-None-Match: \(etag)\r\n\r\n")
        #expect(try client.readResponse().status == 304)
        try client.send("GET /missing HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try client.readResponse().status == 404)
        #expect(server.requests.map(\.method) == [.get, .head, .get, .get])
    }
}
