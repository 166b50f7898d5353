import Discovery

/// The request fields Chromium 156 sends that origins vary their answers on (`Vary: Accept`,
/// `Vary: Accept-Language`): a preload asks with them, so that the answer stored is the one a browser
/// asking offline finds. A field the caller sets (`-H`) wins.
enum BrowserRequestFields {
    /// `Accept` for a document the browser navigates to (a page, a frame).
    static let documentAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,"
        + "image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    /// `Accept` for an image.
    static let imageAccept = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
    /// `Accept` for a stylesheet.
    static let stylesheetAccept = "text/css,*/*;q=0.1"
    /// `Accept-Language` of a browser in the `en-US` locale, which Chromium sends with every request.
    static let acceptLanguage = "en-US,en;q=0.9"

    /// The fields for an item of `kind` (`nil` for a given page): `Accept-Language` for every one
    /// (sites in several languages vary pages and script catalogues on it), and the `Accept` Chromium
    /// sends for a document (frameworks answer HTML or JSON by it), an image (image services choose
    /// WebP or AVIF by it) or a stylesheet; anything else is asked with libcurl's `*/*`, as Chromium
    /// asks for scripts, fonts and media.
    static func fields(for kind: Reference.Kind?) -> KeyValuePairs<String, String> {
        switch kind {
        case nil, .document?: ["Accept": documentAccept, "Accept-Language": acceptLanguage]
        case .image?, .icon?: ["Accept": imageAccept, "Accept-Language": acceptLanguage]
        case .stylesheet?: ["Accept": stylesheetAccept, "Accept-Language": acceptLanguage]
        default: ["Accept-Language": acceptLanguage]
        }
    }
}
