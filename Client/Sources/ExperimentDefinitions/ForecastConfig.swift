/// `forecast` in an experiment file: how far ahead each arm's revenue per user is forecast.
public struct ForecastConfig: Sendable, Equatable {
    /// Days after first exposure that the forecast reaches (default 365).
    public var horizonDays: Int

    public init(horizonDays: Int = 365) {
        self.horizonDays = horizonDays
    }

    /// The longest horizon a file may ask for: five years.
    public static let horizonRange = 1...1826
}
