import HTTPCore

/// Header fields collected by a C iterator callback, which reaches it through a context pointer.
final class HeaderCollector {
    var headers: HTTPHeaders = [:]
}
