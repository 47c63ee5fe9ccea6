import CommandLineKit
import ExperimentDefinitions
import Statistics

/// `abctl power`: users needed per variant to detect a relative lift in a conversion rate.
enum PowerCommand {
    static let spec = CommandSpec(
        name: "power",
        abstract: "Users needed per variant to detect a lift.",
        discussion: """
        Users needed per variant for a two-sided pooled z-test to detect a relative lift of MDE over
          a baseline conversion rate. With K variants each treatment is compared with the control at
          alpha / (K - 1) (Bonferroni), so the answer holds for every comparison.
        """,
        options: [
            .baseline,
            .mde,
            .alpha,
            .power,
            .variants,
            .textOrJSON,
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw CLIError.usage("unexpected argument '\(args.positionals[0])'", command: "power") }
        let baseline = args[.baseline], mde = args[.mde]
        let alpha = args[.alpha], power = args[.power], variants = args[.variants]
        let size: SampleSize
        do {
            size = try SampleSize(baseline: baseline, relativeMDE: mde, alpha: alpha, power: power, variants: variants)
        } catch {
            throw CLIError.usage("\(error)", command: "power")
        }
        if args[.textOrJSON] == "json" {
            let json: JSONValue = .object([
                ("baseline", .number(size.baselineRate)), ("target_rate", .number(size.targetRate)), ("mde", .number(size.relativeMinimumDetectableEffect)),
                ("alpha", .number(size.alpha)), ("comparison_alpha", .number(size.comparisonAlpha)), ("power", .number(size.power)),
                ("variants", .number(Double(size.variants))), ("users_per_variant", .number(Double(size.usersPerVariant))),
                ("total_users", .number(Double(size.totalUsers))),
            ])
            print(json.serialized())
        } else {
            print("""
            To detect \(percent(size.baselineRate)) → \(percent(size.targetRate)) (a \(percent(size.relativeMinimumDetectableEffect)) relative lift) \
            with \(percent(size.power)) power at alpha \(JSONValue.format(size.comparisonAlpha)) per comparison:
              \(size.usersPerVariant) users per variant, \(size.totalUsers) in all (\(size.variants) variants)
            """)
        }
        return .success
    }

    private static func percent(_ x: Double) -> String {
        let v = (x * 1000).rounded() / 10
        return (v == v.rounded() ? String(Int(v)) : String(v)) + "%"
    }
}

private extension OptionKeys {
    static let baseline = OptionKey<Double>(required: "--baseline", value: "rate", help: "Control conversion rate, a fraction (e.g. 0.035).")
    static let mde = OptionKey<Double>(required: "--mde", value: "rel", help: "Minimum detectable effect, relative (e.g. 0.1 for +10%).")
    static let alpha = OptionKey<Double>("--alpha", value: "a", help: "False-positive rate.", default: 0.05)
    static let power = OptionKey<Double>("--power", value: "p", help: "Chance to detect a true effect of that size.", default: 0.8)
    static let variants = OptionKey<Int>("--variants", value: "k", help: "Number of variants, control included.", default: 2)
}
