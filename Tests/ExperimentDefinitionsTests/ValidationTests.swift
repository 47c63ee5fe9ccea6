import Assignment
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// One broken thing per case: the validator must name it with its own code, at the right line.
@Suite struct ValidationTests {
    func validate(_ files: [String: String], products: String? = productsJSON) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        if let products { folder.write("products.json", products) }
        for (name, text) in files { folder.write(name, text) }
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func codes(_ report: ExperimentLoader.Report) -> [String] { report.diagnostics.filter { $0.severity == .error }.map(\.code) }

    @Test func theValidExperimentHasNoProblems() throws {
        let report = validate(["a.json": validExperiment])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let catalog = try #require(report.catalog)
        let e = try #require(catalog.experiment("exp-a"))
        #expect(e.seed == "exp-a" && e.hashVersion == 2 && e.sticky && e.variants.count == 3)
        #expect(e.namespace == Namespace(id: "paywall", start: 0, end: 0.5))
        #expect(e.targeting.appVersion?.description == ">=2.1.0")
        #expect(e.forced == ["qa-1": "ai"])
    }

    @Test func theShippedExperimentsAreValid() {
        let report = ExperimentFiles.validate(paths: [packageRoot + "/Experiments"])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        #expect(report.catalog?.experiments.count == 5, "four experiments (one a bandit) and the global holdout")
        let namespaces = Set(report.catalog?.experiments.compactMap { $0.namespace?.id } ?? [])
        #expect(namespaces == ["paywall"])
    }

    @Test(arguments: [
        ("\"id\": \"exp-a\"", "\"id\": \"Exp A\"", "bad_id", 3),
        ("\"name\": \"A\",", "\"name\": \"A\", \"owner\": 7,", "wrong_type", 4),
        ("\"status\": \"running\"", "\"stauts\": \"running\"", "unknown_key", 5),
        ("\"status\": \"running\",", "", "missing_key", 1),
        ("\"status\": \"running\"", "\"status\": \"live\"", "unknown_status", 5),
        ("\"end\": null", "\"end\": \"2026-11-01T00:00:00Z\"", "end_before_start", 7),
        ("\"start\": \"2026-12-01T00:00:00Z\"", "\"start\": \"1 Dec 2026\"", "bad_date", 6),
        ("\"coverage\": 1.0", "\"coverage\": 1.01", "coverage_out_of_range", 8),
        ("\"range\": [0.0, 0.5]", "\"range\": [-0.1, 0.5]", "namespace_range", 9),
        ("\"platform\": [\"ios\"]", "\"os\": [\"ios\"]", "unknown_targeting_attribute", 10),
        ("\">=2.1.0\"", "\"2.1.0+\"", "bad_version_constraint", 10),
        ("\"primary\": \"paid_conversion\"", "\"primary\": \"conversion\"", "unknown_metric", 11),
        ("\"primary\": \"paid_conversion\"", "\"primary\": \"paid_conversion_d0\"", "unknown_metric", 11),
        ("\"primary\": \"paid_conversion\"", "\"primary\": \"paid_conversion_d366\"", "unknown_metric", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"guardrails\": [\"day0_cancel_rate\"], \"secondary\": [\"revenue_per_usr_d14\"]", "unknown_metric", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"guardrails\": [\"refund_rate_dd14\"]", "unknown_metric", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"revenue_cap\": {\"percentile\": 1.5}", "out_of_range", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"revenue_cap\": {\"percentile\": 0}", "out_of_range", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"revenue_cap\": {\"absolute\": -5}", "out_of_range", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"revenue_cap\": {\"median\": 100}", "invalid_revenue_cap", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"revenue_cap\": {\"percentile\": 0.9, \"absolute\": 100}", "invalid_revenue_cap", 11),
        ("\"guardrails\": [\"day0_cancel_rate\"]", "\"revenue_cap\": 100", "invalid_revenue_cap", 11),
        ("\"qa-1\": \"ai\"", "\"qa-1\": \"a1\"", "forced_unknown_variant", 12),
        ("\"key\": \"name\"", "\"key\": \"control\"", "duplicate_variant_key", 16),
        ("\"weight\": 1, \"paywall\": { \"offering\": \"chorus_plus\", \"trial_days\": 7", "\"weight\": 0, \"paywall\": { \"offering\": \"chorus_plus\", \"trial_days\": 7", "bad_weight", 18),
        ("\"offering\": \"chorus_plus\", \"trial_days\": 7", "\"offering\": \"chorus\", \"trial_days\": 7", "unknown_offering", 18),
        ("\"trial_days\": 7", "\"trial_days\": 32", "trial_days_out_of_range", 18),
        ("\"discount_framing\": \"months_free\"", "\"discount_framing\": \"months_off\"", "unknown_discount_framing", 18),
        ("\"{{ custom.userName }}, hear", "\"{{ custom.firstName }}, hear", "placeholder_without_default", 17),
        ("\"{{ custom.userName }}, hear", "\"{{ custom.user name }}, hear", "malformed_placeholder", 17),
        ("\"{{ custom.userName }}, hear", "\"{{ custom.userName, hear", "malformed_placeholder", 17),
        ("\"Notes: {{ brief }}\"", "\"Notes: {{ brief }} {{ custom.bio }}\"", "malformed_placeholder", 21),
        ("\"equals\": \"dog\"", "\"matches\": \"dog\"", "unknown_brief_operator", 20),
        (",\n                \"fallback\": \"Picture your next walk with every song named. Chorus can help.\"", "", "missing_fallback", 19),
        ("every song named. Chorus can help.", "every song named! Chorus can help.", "fallback_breaks_guard", 23),
        ("every song named. Chorus can help.", "every song named.", "fallback_breaks_guard", 23),
        ("\"strategy\": \"static\"", "\"strategy\": \"plain\"", "unknown_copy_strategy", 15),
    ])
    func eachProblemHasItsOwnCode(find: String, replace: String, code: String, line: Int) throws {
        #expect(validExperiment.contains(find), "fixture lost \(find)")
        let report = validate(["a.json": validExperiment.replacingOccurrences(of: find, with: replace)])
        let found = report.diagnostics.filter { $0.code == code }
        #expect(!found.isEmpty, "expected \(code), got \(report.diagnostics.map { "\($0.code) \($0.message)" })")
        #expect(found.first?.position.line == line, "\(found)")
        #expect(found.allSatisfy { $0.hint?.isEmpty == false || $0.code == "wrong_type" }, "every problem carries a hint")
        #expect(report.catalog == nil)
    }

    @Test func horizonMetricsSecondaryAndACap() throws {
        let text = validExperiment.replacingOccurrences(of: "\"guardrails\": [\"day0_cancel_rate\"]", with: """
            "guardrails": ["day0_cancel_rate", "refund_rate_d30"], "secondary": ["revenue_per_user_d14", "paid_conversion_d365", "revenue_per_user_d1"],
            "revenue_cap": {"percentile": 0.99}
            """).replacingOccurrences(of: "\"primary\": \"paid_conversion\"", with: "\"primary\": \"revenue_per_user_d14\"")
        let report = validate(["a.json": text])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let m = try #require(report.catalog?.experiment("exp-a")).metrics
        #expect(m.primary.name == "revenue_per_user_d14" && m.primary.horizonDays == 14 && m.primary.isRevenue)
        #expect(m.guardrails.map(\.name) == ["day0_cancel_rate", "refund_rate_d30"])
        #expect(m.secondary.map(\.name) == ["revenue_per_user_d14", "paid_conversion_d365", "revenue_per_user_d1"])
        #expect(m.revenueCap == .percentile(0.99))
        // Every table metric, then each named horizon metric once, in the order named.
        #expect(m.reported().map(\.name) == Metric.baseMetrics.map(\.name) + ["revenue_per_user_d14", "refund_rate_d30", "paid_conversion_d365", "revenue_per_user_d1"])
    }

    @Test func badMetricNamesSayWhatIsWrong() {
        let text = validExperiment.replacingOccurrences(of: "\"primary\": \"paid_conversion\"", with: "\"primary\": \"paid_convresion_d14\"")
            .replacingOccurrences(of: "\"guardrails\": [\"day0_cancel_rate\"]", with: "\"guardrails\": [\"day0_cancel_rate_d366\"]")
        let found = validate(["a.json": text]).diagnostics.filter { $0.code == "unknown_metric" }
        #expect(found.count == 2)
        #expect(found.contains { $0.message == "unknown metric 'paid_convresion_d14'" && $0.hint?.contains("did you mean 'paid_conversion'?") == true })
        #expect(found.contains { $0.message.contains("horizon of 366 days") && $0.message.contains("from 1 to 365") })
    }

    /// The revenue forecast as a metric: primary or secondary at the forecast's horizon; never bare, never a
    /// guardrail, never at another horizon than `forecast.horizon_days`.
    @Test func forecastMetricsNameTheForecastsHorizon() {
        func codes(_ metrics: String, forecast: String = "") -> [String] {
            let text = validExperiment.replacingOccurrences(of: "\"primary\": \"paid_conversion\", \"guardrails\": [\"day0_cancel_rate\"]", with: metrics)
                .replacingOccurrences(of: "\"id\": \"exp-a\",", with: "\"id\": \"exp-a\",\(forecast)")
            return validate(["a.json": text]).diagnostics.filter { $0.severity == .error }.map(\.code)
        }
        #expect(codes(#""primary": "revenue_per_user_forecast_d365""#) == [])
        #expect(codes(#""primary": "paid_conversion", "secondary": ["revenue_per_user_forecast_d180"]"#, forecast: #" "forecast": { "horizon_days": 180 },"#) == [])
        #expect(codes(#""primary": "revenue_per_user_forecast_d180""#) == ["forecast_horizon"])
        #expect(codes(#""primary": "revenue_per_user_forecast""#) == ["unknown_metric"])
        #expect(codes(#""primary": "proceeds_per_user_forecast_d365""#) == [])
        #expect(codes(#""primary": "paid_conversion", "guardrails": ["proceeds_per_user_forecast_d365"]"#) == ["forecast_guardrail"])
        #expect(codes(#""primary": "paid_conversion", "guardrails": ["revenue_per_user_forecast_d365"]"#) == ["forecast_guardrail"])
        #expect(codes(#""primary": "paid_conversion""#, forecast: #" "forecast": { "horizon_days": 0 },"#) == ["bad_horizon"])
    }

    /// schema.json names the metric table's metrics, no more and no fewer (editors and check-jsonschema read it):
    /// those with an optional horizon, then the forecast, which always has one.
    @Test func theSchemaNamesTheMetricTable() throws {
        let text = try String(contentsOfFile: packageRoot + "/Experiments/schema.json", encoding: .utf8)
        let start = try #require(text.range(of: "\"pattern\": \"^("))
        let names = text[start.upperBound...].prefix { $0 != ")" }.split(separator: "|").map(String.init)
        let forecastStart = try #require(text.range(of: "$|^("))
        let forecasts = text[forecastStart.upperBound...].prefix { $0 != ")" }.split(separator: "|").map(String.init)
        #expect(names + forecasts == MetricTable.all.map(\.name))
        #expect(MetricTable.all.filter(\.isForecast).map(\.name) == forecasts)
        #expect(text.contains("(_d([1-9]|[1-9][0-9]|[12][0-9][0-9]|3[0-5][0-9]|36[0-5]))?$|^(revenue_per_user_forecast|proceeds_per_user_forecast)_d([1-9]|[1-9][0-9]|[12][0-9][0-9]|3[0-5][0-9]|36[0-5])$"))
    }

    @Test func fewerThanTwoVariants() {
        let one = validExperiment.replacingOccurrences(of: #"""
            { "key": "name", "weight": 1, "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "percent_off",
              "copy": { "strategy": "custom_variable", "template": "{{ custom.userName }}, hear every bird.", "defaults": { "userName": "Birder" } } } },
            { "key": "ai"
        """#, with: #"{ "key": "ai""#)
        let report = validate(["a.json": one])
        #expect(codes(report).contains("too_few_variants") == false, "two variants left is fine: \(codes(report))")
        let single = """
        { "id": "one", "name": "x", "status": "draft", "variants": [
          { "key": "only", "paywall": { "offering": "chorus_plus", "trial_days": 0, "copy": { "strategy": "static", "text": "x" } } } ] }
        """
        #expect(codes(validate(["b.json": single])) == ["too_few_variants"])
    }

    @Test func aDiscountWhoseClaimIsNotPositiveIsAnError() {
        // flat: annual = 12 × monthly, so "Save 0%" and "0 months free" would be lies.
        let text = validExperiment.replacingOccurrences(of: "\"offering\": \"chorus_plus\", \"trial_days\": 3, \"discount_framing\": \"percent_off\"",
                                                        with: "\"offering\": \"flat\", \"trial_days\": 3, \"discount_framing\": \"percent_off\"")
        let report = validate(["a.json": text])
        #expect(codes(report) == ["discount_claim"], "\(report.diagnostics)")
        #expect(report.diagnostics.first?.message.contains("Save 0%") == true)
    }

    @Test func everyProblemInOneRunAcrossFiles() {
        let broken = validExperiment
            .replacingOccurrences(of: "\"status\": \"running\"", with: "\"status\": \"runing\"")
            .replacingOccurrences(of: "\"coverage\": 1.0", with: "\"coverage\": 2")
            .replacingOccurrences(of: "\"trial_days\": 7", with: "\"trial_days\": -1")
        let report = validate(["a.json": broken, "b.json": "{ \"id\": ", "c.json": validExperiment.replacingOccurrences(of: "exp-a", with: "exp-c")])
        let byFile = Dictionary(grouping: report.diagnostics, by: { String($0.file.split(separator: "/").last!) })
        #expect(Set(byFile["a.json"]?.map(\.code) ?? []) == ["unknown_status", "coverage_out_of_range", "trial_days_out_of_range"])
        // The broken file's one error, and one note naming the checks skipped because of it.
        #expect(byFile["b.json"]?.map(\.code) == ["invalid_json", "checks_skipped"])
        #expect(byFile["b.json"]?.last?.severity == .note)
        #expect(byFile["b.json"]?.first?.position == SourcePosition(line: 1, column: 9))
        #expect(byFile["c.json"] == nil)
        #expect(report.files.count == 4)
    }

    @Test func duplicateIDsAcrossFiles() {
        let report = validate(["a.json": validExperiment, "b.json": validExperiment.replacingOccurrences(of: "[0.0, 0.5]", with: "[0.5, 1.0]")])
        #expect(codes(report) == ["duplicate_experiment_id"])
        #expect(report.diagnostics.first?.file.hasSuffix("b.json") == true)
    }

    @Test(arguments: [("[0.4, 1.0]", "running", true), ("[0.5, 1.0]", "running", false), ("[0.4, 1.0]", "stopped", false)])
    func namespaceOverlapBetweenRunningExperiments(range: String, status: String, overlaps: Bool) {
        let other = validExperiment.replacingOccurrences(of: "exp-a", with: "exp-b").replacingOccurrences(of: "[0.0, 0.5]", with: range)
            .replacingOccurrences(of: "\"status\": \"running\"", with: "\"status\": \"\(status)\"")
        let report = validate(["a.json": validExperiment, "b.json": other])
        #expect(codes(report) == (overlaps ? ["namespace_overlap"] : []), "\(report.diagnostics)")
    }

    @Test func missingProductsIsReported() {
        let report = validate(["a.json": validExperiment], products: nil)
        #expect(codes(report) == ["missing_products"])
    }

    @Test func brokenProductsAreReportedWithPositions() {
        let report = validate(["a.json": validExperiment], products: #"{ "currency": "usd", "offerings": { "chorus_plus": { "plans": { "m": { "product_id": "x", "price": -1, "period": "P1D" } } } } }"#)
        #expect(Set(codes(report)).isSuperset(of: ["bad_currency", "bad_price", "bad_period"]), "\(codes(report))")
    }
}

/// `exchange_rates` in products.json: decoded, and each bad entry named at its line and column.
@Suite struct ExchangeRatesTests {
    func validate(_ rates: String) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON.replacingOccurrences(of: #"{ "currency": "USD","#, with: "{ \"currency\": \"USD\",\n  \"exchange_rates\": \(rates),"))
        folder.write("a.json", validExperiment)
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    @Test func ratesAreRead() throws {
        let report = validate(#"{ "EUR": 1.08, "JPY": 0.0067 }"#)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let products = try #require(report.catalog?.products)
        #expect(products.exchangeRates == ["EUR": 1.08, "JPY": 0.0067])
        #expect(try products.converter.convert(100, from: "EUR") == 108)
        #expect(try products.converter.convert(100, from: nil) == 100)
        #expect(throws: CurrencyConverter.NoRate.self) { try products.converter.convert(100, from: "SEK") }
    }

    @Test func badRatesAreNamedWhereTheyAre() {
        let report = validate(#"{ "eur": 1.08, "GBP": 0, "USD": 1, "JPY": "0.0067" }"#)
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == ["bad_currency", "bad_exchange_rate", "bad_exchange_rate", "wrong_type"], "\(errors)")
        // Each message names what it found: a number that is not positive, a string where a number belongs.
        #expect(errors[1].message == "the rate of GBP must be positive, not 0")
        #expect(errors[3].message == "the rate of JPY must be a number, not string")
        #expect(errors.allSatisfy { $0.file.hasSuffix("products.json") && $0.position.line == 2 })
        #expect(errors.map(\.position.column) == [23, 43, 46, 63], "\(errors.map(\.position))")
        #expect(errors[2].message.contains("'USD' is the report currency"))
        // products.json unusable: its error, and one note for the offering checks skipped because of it.
        #expect(validate("[1]").diagnostics.map(\.code) == ["wrong_type", "checks_skipped"])
    }
}
