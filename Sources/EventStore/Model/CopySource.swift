/// Where the paywall line an exposure showed came from (SPEC §3).
public enum CopySource: String, Sendable, CaseIterable, CustomStringConvertible {
    case `static` = "static"
    case template
    case onDevice = "on_device"
    case server
    case fallback

    public var description: String { rawValue }
}
