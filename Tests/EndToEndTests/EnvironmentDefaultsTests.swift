import Foundation
import TestSupport
import Testing

/// Every command applies `--db` and `--experiments` the same way: the flag, else a variable that is
/// set and not empty (`ABCTL_DB=""`, common in CI templates, counts as unset), else the default.
@Suite struct EnvironmentDefaultsTests {
    static let oracle = Abctl.packageRoot + "/Tests/ReportingTests/Fixtures/oracle"
    static let empty = ["ABCTL_DB": "", "ABCTL_EXPERIMENTS": "", "ABCTL_NOW": "2026-12-31T00:00:00Z"]

    /// A working folder with the oracle experiment in `Experiments/` and no database yet.
    func folder() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        for name in ["oracle-report.json", "products.json"] {
            try FileManager.default.copyItem(atPath: Self.oracle + "/experiments/" + name, toPath: folder.path + "/Experiments/" + name)
        }
        return folder
    }

    @Test func emptyVariablesGiveIngestAndReportTheSameDefaults() async throws {
        let folder = try folder()
        let ingest = try await Abctl.run(["ingest", Self.oracle + "/events.ndjson"], in: folder.path, environment: Self.empty)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/abctl.sqlite"))
        let report = try await Abctl.run(["report", "oracle-report", "--format", "json"], in: folder.path, environment: Self.empty)
        #expect(report.status == 0, "\(report.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
        #expect(json?["users"] as? Int == 3000)
    }

    @Test func aSetVariableIsUsedByIngestAndReportAlike() async throws {
        let folder = try folder()
        let environment = ["ABCTL_DB": "from-env.sqlite", "ABCTL_NOW": "2026-12-31T00:00:00Z"]
        let ingest = try await Abctl.run(["ingest", Self.oracle + "/events.ndjson"], in: folder.path, environment: environment)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/from-env.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/abctl.sqlite"))
        let report = try await Abctl.run(["report", "oracle-report", "--format", "json"], in: folder.path, environment: environment)
        #expect(report.status == 0, "\(report.stderr)")
    }

    @Test func aValueOutsideTheChoicesIsAUsageError() async throws {
        let r = try await Abctl.run(["validate", "--format", "xml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("'xml' is not a valid value for '--format'"))
    }

    @Test func helpShowsDefaultsAndVariables() async throws {
        let r = try await Abctl.run(["ingest", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("--db <path>             The event store: a SQLite file, or a postgres:// URL. (default: abctl.sqlite) (env: ABCTL_DB)"))
    }
}
