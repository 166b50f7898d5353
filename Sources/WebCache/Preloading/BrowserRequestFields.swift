import Discovery

/// The request fields Chromium 156 sends that origins vary their answers on (`Vary: Accept`,
/// `Vary: Accept-Language`): a preload asks with them, so that the answer stored is the one a browser
/// asking offline finds. Each field costs a request libcurl's work on it, so each is sent only where
/// answers commonly vary on it; a field the caller sets (`-H`) wins.
enum BrowserRequestFields {
    /// `Accept` for a document the browser navigates to (a page, a frame).
    static let documentAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,"
        + "image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    /// `Accept` for an image.
    static let imageAccept = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
    /// `Accept-Language` of a browser in the `en-US` locale, which Chromium sends with every request.
    static let acceptLanguage = "en-US,en;q=0.9"

    /// The fields for an item of `kind` (`nil` for a given page): a document is asked with the
    /// browser's `Accept` and `Accept-Language` (sites in several languages vary their pages on it,
    /// frameworks that answer HTML or JSON on `Accept`), an image with its `Accept` (image services
    /// choose WebP or AVIF by it), anything else with libcurl's `*/*` alone.
    static func fields(for kind: Reference.Kind?) -> KeyValuePairs<String, String> {
        switch kind {
        case nil, .document?: ["Accept": documentAccept, "Accept-Language": acceptLanguage]
        case .image?, .icon?: ["Accept": imageAccept]
        default: [:]
        }
    }
}
