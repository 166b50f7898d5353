/// Status codes and their reason phrases (RFC 9110 §15).
public enum HTTPStatus {
    /// The standard reason phrase of `status`, `nil` for a code without one here.
    public static func reasonPhrase(_ status: Int) -> String? {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: nil
        }
    }
}
