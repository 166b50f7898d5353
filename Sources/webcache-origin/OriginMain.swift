@main struct OriginMain { static func main() {} }
