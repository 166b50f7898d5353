@main struct WebCacheMain { static func main() {} }
