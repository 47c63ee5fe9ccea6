import Foundation
import PostgresStore
import Server
import TestSupport
import Testing

/// A namespace keeps people apart, not only ids, in `/v1/assign`'s answer: an
/// account whose id hashes into one experiment of the `paywall` namespace, linked to an anonymous
/// id already exposed to another of it, is answered `namespace` (not in the experiment). On
/// PostgreSQL the answer waits for the lookup, on SQLite it is read on the request's thread.
@Suite(.timeLimit(.minutes(4)))
struct APINamespacePeopleTests {
    static let keys = "app-key:app;ingest-key:ingest"
    static let attributes = #""attributes":{"platform":"ios","new_user":true,"country":"US","app_version":"2.4.0"}"#

    enum Store: String, CaseIterable, Sendable { case sqlite, postgres }

    @Test(arguments: Store.allCases)
    func anAccountLinkedToAnExposedIDIsLeftOutOfTheOtherSlice(_ store: Store) async throws {
        let server: InProcessServer
        switch store {
        case .sqlite: server = try InProcessServer { $0.keys = try APIKeys.parse(environment: Self.keys) }
        case .postgres:
            let url = try await onOwnThread { try PostgresCluster.shared().createDatabase() }
            server = try InProcessServer(options: { $0.keys = try APIKeys.parse(environment: Self.keys) }, store: try PostgresEventStore(url: url))
        }
        let app = ["Authorization": "Bearer app-key"]
        func answer(_ user: String, _ experiment: String) async throws -> (inExperiment: Bool, reason: String?, variant: String?) {
            let reply = await server.request("POST", "/v1/assign", headers: app,
                                             body: #"{"user_id":"\#(user)",\#(Self.attributes),"experiments":["\#(experiment)"]}"#)
            let first = try #require((reply.json?["assignments"] as? [[String: Any]])?.first, "\(reply.text)")
            return (first["in_experiment"] as? Bool ?? false, first["reason"] as? String, first["variant"] as? String)
        }
        // An anonymous id in chorus-paywall-copy's slice, an account in chorus-trial-length's.
        var anonymous = "", shown = "", account = ""
        for n in 0..<300 where anonymous.isEmpty {
            let a = try await answer("anon-\(n)", "chorus-paywall-copy")
            if a.inExperiment, let v = a.variant { (anonymous, shown) = ("anon-\(n)", v) }
        }
        for n in 0..<300 where account.isEmpty {
            if try await answer("acct-\(n)", "chorus-trial-length").inExperiment { account = "acct-\(n)" }
        }
        try #require(!anonymous.isEmpty && !account.isEmpty)
        let now = ISO8601DateFormatter().string(from: Date())
        let exposure = #"{"event_id":"x1","type":"exposure","user_id":"\#(anonymous)","experiment":"chorus-paywall-copy","variant":"\#(shown)","ts":"\#(now)"}"#
        #expect(await server.request("POST", "/v1/events", headers: app, body: exposure).status == 200)
        let identify = await server.request("POST", "/v1/identify", headers: app, body: #"{"user_id":"\#(anonymous)","identity":"\#(account)"}"#)
        #expect(identify.status == 200, "\(identify.text)")

        let after = try await answer(account, "chorus-trial-length")
        #expect(!after.inExperiment && after.reason == "namespace" && after.variant == nil, "\(after)")
        // The person keeps the arm it was shown where it was exposed.
        let kept = try await answer(account, "chorus-paywall-copy")
        #expect(kept.inExperiment && kept.reason == "sticky" && kept.variant == shown, "\(kept)")
        // The anonymous id, in its own slice, is answered as before.
        #expect(try await answer(anonymous, "chorus-paywall-copy").variant == shown)
    }
}
