import HTTPCore
import Testing

struct HTTPStatusTests {
    /// Every code of RFC 9110 §15 and the later ones in use has its phrase, which `get -i`, WARC
    /// status lines and HAR's statusText carry; a code without a registered phrase has none.
    @Test(arguments: [
        (202, "Accepted"), (409, "Conflict"), (416, "Range Not Satisfiable"), (429, "Too Many Requests"),
        (504, "Gateway Timeout"), (103, "Early Hints"), (451, "Unavailable For Legal Reasons"), (200, "OK"),
    ])
    func namesTheRegisteredCodes(status: Int, phrase: String) {
        #expect(HTTPStatus.reasonPhrase(status) == phrase)
    }

    @Test(arguments: [299, 418, 599, 0])
    func hasNoPhraseForAnUnregisteredCode(status: Int) {
        #expect(HTTPStatus.reasonPhrase(status) == nil)
    }
}
