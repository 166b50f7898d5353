import Testing

@testable import WebCache

/// Hiding credentials in messages.
struct URLReferenceTests {
    @Test func messagesHideCredentials() {
        #expect(URLReference.excerpt("http://user:secret@a.test/x") == "http://***@a.test/x")
    }
}
