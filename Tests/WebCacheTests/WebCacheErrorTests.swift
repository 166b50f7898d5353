import Foundation
import Testing
import Transport

@testable import WebCache

/// What a ``WebCacheError`` says, and whether sending the request again may help.
struct WebCacheErrorTests {
    private let url = URL(string: "http://a.test/x")!

    @Test func aCauseThatRepeatsTheMessageWithDetailsIsSaidOnce() {
        let transport = TransportError(code: .invalidRequest, message: "The URL http://a.test/x cannot be requested.",
                                       url: url, curlCode: 3, curlText: "URL using bad/illegal format or missing URL")
        let error = WebCacheError(.network, transport.message, cause: transport)
        #expect(error.description == "The URL http://a.test/x cannot be requested. "
            + "(curl error 3: URL using bad/illegal format or missing URL)")
    }

    @Test func anUnrelatedCauseFollowsTheMessage() {
        let error = WebCacheError(.store, "The store failed to save http://a.test/x.",
                                  cause: CocoaError(.fileWriteOutOfSpace))
        #expect(error.description.hasPrefix("The store failed to save http://a.test/x. Underlying error: "))
        #expect(WebCacheError(.store, "The store is closed.", cause: WebCacheError(.store, "The store is closed."))
            .description == "The store is closed.")
    }

    @Test func aNetworkFailureIsTransientUnlessTheTransportFoundItPermanent() {
        let refused = TransportError(code: .connectFailed, message: "Could not connect to http://a.test/x.",
                                     url: url, curlCode: 7, curlText: "Couldn't connect to server")
        let malformed = TransportError(code: .invalidRequest, message: "The URL http://a.test/x cannot be requested.",
                                       url: url, curlCode: 3, curlText: "URL using bad/illegal format or missing URL")
        #expect(WebCacheError(.network, refused.message, cause: refused).isTransient)
        #expect(!WebCacheError(.network, malformed.message, cause: malformed).isTransient)
    }

    @Test func onlyNetworkFailuresAreTransient() {
        #expect(WebCacheError(.network, "The network failed.").isTransient)
        #expect(!WebCacheError(.invalidURL, "'x' has no host.").isTransient)
        #expect(!WebCacheError(.store, "The store failed.").isTransient)
    }
}
