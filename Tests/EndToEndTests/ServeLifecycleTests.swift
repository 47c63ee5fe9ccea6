import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve`: the keys file, the loopback rule, SIGHUP reload and SIGTERM drain (the keys'
/// scopes are checked in process: ServerTests/InProcess/APIKeyScopeTests).
@Suite(.timeLimit(.minutes(2)))
struct ServeLifecycleTests {
    static let keys = "assign-key-123:assign;ingest-key-456:ingest;admin-key-789:admin"

    @Test func keysFile() async throws {
        let folder = TemporaryFolder()
        let file = folder.write("keys.txt", "# keys\nfile-key-1 assign\n")
        let server = try await ServeProcess.start(arguments: ["--keys-file", file])
        let copy = #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus"}"#
        #expect(try await server.request("POST", "/v1/copy/check", body: copy).status == 401)
        #expect(try await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Bearer file-key-1"], body: copy).status == 200)
    }

    @Test func withoutKeysOnlyLoopback() async throws {
        let folder = TemporaryFolder()
        let r = try await Abctl.run(["serve", "--port", "0", "--host", "0.0.0.0", "--db", folder.path + "/never.sqlite"],
                                  environment: ["ABCTL_API_KEYS": ""])
        #expect(r.status == 2)
        #expect(r.stderr.contains("refusing to listen on 0.0.0.0 without API keys"), "\(r.stderr)")
        // Refused before the store is opened: no database file is made.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/never.sqlite"))
        let badKeys = try await Abctl.run(["serve", "--port", "0"], environment: ["ABCTL_API_KEYS": "k:superuser"])
        #expect(badKeys.status == 2)
        #expect(badKeys.stderr.contains("unknown scope 'superuser'"))
        let noPort = try await Abctl.run(["serve"])
        #expect(noPort.status == 2)
        // ABCTL_NOW fixes the reports' clock; a bad one is refused before the store opens, as `report` refuses it.
        let badNow = try await Abctl.run(["serve", "--port", "0", "--db", folder.path + "/never.sqlite"], environment: ["ABCTL_NOW": "yesterday"])
        #expect(badNow.status == 2)
        #expect(badNow.stderr.contains("ABCTL_NOW is not an RFC 3339 time: 'yesterday'"), "\(badNow.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/never.sqlite"))
    }

    @Test func brokenExperimentsAtStartExitOneAsValidateDoes() async throws {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        folder.write("chorus-trial-length.json", "{ not json")
        let r = try await Abctl.run(["serve", "--port", "0", "--experiments", folder.path, "--db", folder.path + "/db.sqlite"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("abctl: error:"))
    }

    @Test func sighupReloadsAndABrokenFolderKeepsTheOldSnapshot() async throws {
        let server = try await ServeProcess.start(withHoldout: true)
        let ids = { () async throws -> Set<String> in
            Set(((try await server.request("GET", "/v1/experiments").json?["experiments"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
        }
        #expect(try await ids().count == 5)

        // Good change: one experiment removed, with the placement audience that showed it.
        try FileManager.default.removeItem(atPath: server.experimentsPath + "/chorus-discount-framing.json")
        let placementsPath = server.experimentsPath + "/placements.json"
        let placements = try String(contentsOfFile: placementsPath, encoding: .utf8)
        let withoutAudience = placements.replacingOccurrences(
            of: #",\n\s*\{ "name": "android"[^\n]*"chorus-discount-framing" \}"#, with: "", options: .regularExpression)
        #expect(withoutAudience != placements, "placements.json shows chorus-discount-framing to an audience")
        try withoutAudience.write(toFile: placementsPath, atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        #expect(try await eventually { try await ids() == ["chorus-holdout", "chorus-paywall-copy", "chorus-trial-length", "chorus-voice"] })
        #expect(try await server.request("GET", "/metrics").text.contains(#"abctl_reloads_total{result="ok"} 1"#))

        // Broken change: the old snapshot stays, and the log says why.
        try "{ \"id\": ".write(toFile: server.experimentsPath + "/chorus-trial-length.json", atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        #expect(try await eventually { try await server.request("GET", "/metrics").text.contains(#"abctl_reloads_total{result="failed"} 1"#) })
        #expect(try await ids() == ["chorus-holdout", "chorus-paywall-copy", "chorus-trial-length", "chorus-voice"])
        #expect(try await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus"}"#).status == 200)
        #expect(await eventually {
            server.logLines.contains { ($0["msg"] as? String)?.hasPrefix("reload failed") == true && ($0["problems"] as? [String])?.first?.contains("chorus-trial-length.json") == true }
        })
        #expect(server.isRunning)
    }

    /// `last_reload_error` is null, then the time and problems (file:line:column) of a
    /// refused reload, and null again once a later reload succeeds.
    @Test func healthzCarriesTheLastRefusedReloadUntilAGoodOne() async throws {
        let server = try await ServeProcess.start()
        let lastError = { () async throws -> Any? in try await server.request("GET", "/healthz").json?["last_reload_error"] }
        #expect(try await lastError() is NSNull)
        let path = server.experimentsPath + "/chorus-trial-length.json"
        let good = try String(contentsOfFile: path, encoding: .utf8)
        #expect(good.split(separator: "\n", omittingEmptySubsequences: false)[6].contains(#""status": "running""#))
        try good.replacingOccurrences(of: #""status": "running""#, with: #""status": "runing""#)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let before = Date()
        server.signal(SIGHUP)
        #expect(try await eventually { try await lastError() is [String: Any] })
        let refused = try #require(try await lastError() as? [String: Any])
        let problems = refused["problems"] as? [String] ?? []
        #expect(problems.count == 1)
        #expect(problems.first?.hasSuffix("chorus-trial-length.json:7:13: error: unknown status 'runing'") == true, "\(problems)")
        let text = refused["at"] as? String ?? "", plain = ISO8601DateFormatter(), fractional = ISO8601DateFormatter()
        fractional.formatOptions.insert(.withFractionalSeconds)
        let at = try #require(fractional.date(from: text) ?? plain.date(from: text), "\(text)")
        #expect(at.timeIntervalSince(before) > -1 && at.timeIntervalSinceNow < 1)

        try good.write(toFile: path, atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        #expect(try await eventually { try await lastError() is NSNull })
        #expect(try await server.request("GET", "/healthz").json?["reloads"] as? Int == 1)
    }

    @Test func sighupDuringTrafficDropsNoRequest() async throws {
        let server = try await ServeProcess.start()
        let port = server.port
        let failures = Failures()
        let done = Flag()
        let group = DispatchGroup()
        for client in 0..<4 {
            group.onOwnThread {
                do {
                    let connection = try HTTPConnection(port: port)
                    var i = 0
                    while !done.value.load(ordering: .acquiring) && i < 2000 {
                        let reply = try connection.request("GET", "/v1/experiments")
                        if reply.status != 200 { failures.add("client \(client): \(reply.status)") }
                        i += 1
                    }
                } catch {
                    failures.add("client \(client): \(error)")
                }
            }
        }
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(50))
            server.signal(SIGHUP)
        }
        #expect(await eventually { ((try? await server.request("GET", "/healthz").json?["reloads"] as? Int) ?? 0) == 5 })
        done.value.store(true, ordering: .releasing)
        await group.finished()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
    }

    @Test func sigtermDrainsRequestsInFlightAndExitsZero() async throws {
        let server = try await ServeProcess.start()
        // A request whose body is half sent when SIGTERM arrives.
        let inFlight = try server.connect()
        let body = Array(#"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus sings"}"#.utf8)
        try inFlight.send(Array(HTTPConnection.head("POST", "/v1/copy/check", headers: [:], bodyLength: body.count).utf8) + body[..<10])
        try await Task.sleep(for: .milliseconds(200))
        server.signal(SIGTERM)
        // Draining: new connections are refused while the process waits for that request.
        #expect(await eventually { (try? await server.request("GET", "/healthz")) == nil })
        #expect(server.isRunning)
        try inFlight.send(Array(body[10...]))
        let reply = try inFlight.readReply()
        #expect(reply.status == 200)
        #expect(reply.json?["accepted"] as? Bool == true)
        #expect(reply.headers["connection"]?.lowercased() == "close")
        #expect(await server.exit(within: .seconds(10)) == 0)
        #expect(server.logLines.contains { $0["msg"] as? String == "stopped" })
    }

    @Test func sigtermWhenIdleExitsZero() async throws {
        let server = try await ServeProcess.start()
        #expect(try await server.request("GET", "/healthz").status == 200)
        server.signal(SIGTERM)
        #expect(await server.exit(within: .seconds(10)) == 0)
    }
}
