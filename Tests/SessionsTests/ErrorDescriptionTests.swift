import Testing

@testable import Sessions

/// An error's description ends its underlying error's sentence with one full stop.
struct ErrorDescriptionTests {
    private struct Cause: Error, CustomStringConvertible {
        var description: String
    }

    @Test(arguments: [
        ("The token file 'token' does not exist.", "The token file 'token' does not exist."),
        ("exit status 3", "exit status 3."),
    ])
    func endsTheUnderlyingSentenceOnce(cause: String, ending: String) {
        let authorization = AuthorizationError(
            code: .fileUnreadable, message: "No token.", cause: Cause(description: cause))
        #expect(authorization.description == "No token. Underlying error: \(ending)")
        let session = SessionError(code: .tokenUnavailable, message: "No token.", cause: authorization)
        #expect(session.description == "No token. Underlying error: No token. Underlying error: \(ending)")
    }
}
