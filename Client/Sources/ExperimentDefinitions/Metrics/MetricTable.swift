/// Every metric a report knows: the one place a metric is defined. Everything else (the file format,
/// the report's counts and tests, labels, the verdict, simulation truths) reads this table.
public enum MetricTable {
    public static let all: [MetricDefinition] = [
        MetricDefinition(name: "trial_start_rate", unit: .exposedUsers, statistic: .proportion(numerator: .trialStart),
                         title: "Trial starts", winWords: "gets more users to start a trial"),
        MetricDefinition(name: "paid_conversion", unit: .exposedUsers, statistic: .proportion(numerator: .paid),
                         title: "Paid conversion", winWords: "turns more users into paying subscribers"),
        MetricDefinition(name: "trial_to_paid", unit: .trialStarters, statistic: .proportion(numerator: .converted),
                         title: "Trial to paid", winWords: "turns more trials into paid subscriptions"),
        MetricDefinition(name: "day0_cancel_rate", unit: .trialStarters, statistic: .proportion(numerator: .day0Cancel),
                         lowerIsBetter: true, title: "Day-0 cancels", winWords: "has fewer Day-0 cancels"),
        MetricDefinition(name: "trial_cancel_rate", unit: .trialStarters, statistic: .proportion(numerator: .trialCancel),
                         lowerIsBetter: true, title: "Cancels during trial", winWords: "has fewer cancels during the trial"),
        MetricDefinition(name: "revenue_per_user", unit: .exposedUsers, statistic: .meanRevenue,
                         title: "Gross revenue per user", winWords: "earns more per user"),
        MetricDefinition(name: "proceeds_per_user", unit: .exposedUsers, statistic: .meanProceeds,
                         title: "Proceeds per user", winWords: "brings in more proceeds per user"),
        MetricDefinition(name: "refund_rate", unit: .payers, statistic: .proportion(numerator: .refund),
                         lowerIsBetter: true, title: "Refunds", winWords: "has fewer refunds"),
        MetricDefinition(name: "billing_issue_rate", unit: .chargeDue, statistic: .proportion(numerator: .billingIssue),
                         lowerIsBetter: true, title: "Billing issues", winWords: "has fewer billing issues"),
        MetricDefinition(name: "revenue_per_user_forecast", unit: .exposedUsers, statistic: .forecastRevenue,
                         title: "Gross revenue per user forecast", winWords: "is forecast to earn more per user"),
        MetricDefinition(name: "proceeds_per_user_forecast", unit: .exposedUsers, statistic: .forecastProceeds,
                         title: "Proceeds per user forecast", winWords: "is forecast to bring in more proceeds per user"),
    ]

    /// The table entry named `name` (no horizon suffix), if any.
    public static func index(of name: String) -> Int? { all.firstIndex { $0.name == name } }
}
