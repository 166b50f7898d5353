import Foundation
import LocalOrigin
import Testing
import Transport
import WebCacheTestSupport

@testable import WebCache

/// Failures that sending the request again cannot mend fail at once, and say what happened once.
@Suite(.timeLimit(.minutes(5))) struct PermanentFailureTests {
    @Test func aURLThatCannotBeRequestedAndAnAnswerThatIsNotHTTPAreNotRetried() async throws {
        // A host under .localhost is private by name: no DNS lookup decides whether it may be fetched.
        let malformed = "http://bad_host!.localhost/a.png"
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                .text("<img src=\"\(malformed)\"><img src=\"ssh.png\">", contentType: "text/html")
            default:
                OriginResponse(body: .raw { socket in try socket.write("SSH-2.0-OpenSSH\r\n\r\n") })
            }
        }
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], events: events.handler)

        #expect(events.retryingPaths.isEmpty)
        #expect(report.failures.count == 2)
        let failures = events.failures
        let refused = try #require(failures["/a.png"])
        // Checked before any request, as the URL file's lines are (curl refused it before that).
        #expect(refused == "the URL has the host 'bad_host!.localhost', which is not a valid host name or IP address")
        let notHTTP = try #require(failures["/ssh.png"])
        #expect(notHTTP.hasPrefix("The response from \(rig.url("ssh.png")) was malformed or cut short. "
            + "(curl error 1: "), "\(notHTTP)")
        for reason in [refused, notHTTP] {
            #expect(!reason.contains("Underlying error"), "\(reason)")
        }
        await rig.stop()
    }

    @Test func aRefusedConnectionIsStillRetried() async throws {
        let refusing = try RefusingPort()
        let rig = try PreloadRig.start { _ in
            .text("<img src=\"http://127.0.0.1:\(refusing.port)/a.png\">", contentType: "text/html")
        }
        var options = PreloadOptions()
        options.retryDelay = .milliseconds(1)
        let events = PreloadEventLog()

        _ = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        #expect(events.retryingPaths == ["/a.png", "/a.png"])
        await rig.stop()
    }
}
