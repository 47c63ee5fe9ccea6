import ExperimentDefinitions
import Testing
import Events

/// People (docs/People.md): `{"type": "identified", "user_id", "identity"}`; `identity` is required there,
/// refused on other types, held to the user id's rules, and an `app` key's is at most 7 days old.
struct IdentifiedParsingTests {
    let parser = EventParser()

    func rejection(_ line: String, with parser: EventParser? = nil) -> EventRejection? {
        if case .failure(let r)? = (parser ?? self.parser).parse(line: line) { return r }
        return nil
    }

    @Test func anIdentifyNamesTheKnownID() throws {
        let event = try #require(try parser.parse(line: #"{"event_id":"identify:acct","type":"identified","user_id":"$RCAnonymousID:1","identity":"acct","ts":"2026-12-01T10:00:00Z"}"#)?.get())
        #expect(event.type == .identified && event.userID == "$RCAnonymousID:1" && event.identity == "acct")
        #expect(parser.validate(event) == nil)
    }

    @Test func identityIsRequiredThereAndRefusedElsewhere() {
        let missing = rejection(#"{"event_id":"e","type":"identified","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#)
        #expect(missing?.field == "identity" && missing?.reason.contains("required") == true)
        let empty = rejection(#"{"event_id":"e","type":"identified","user_id":"u","identity":"","ts":"2026-12-01T10:00:00Z"}"#)
        #expect(empty?.field == "identity")
        let long = rejection(#"{"event_id":"e","type":"identified","user_id":"u","identity":"\#(String(repeating: "x", count: 257))","ts":"2026-12-01T10:00:00Z"}"#)
        #expect(long?.field == "identity")
        let elsewhere = rejection(#"{"event_id":"e","type":"purchased","user_id":"u","identity":"acct","ts":"2026-12-01T10:00:00Z"}"#)
        #expect(elsewhere?.field == "identity" && elsewhere?.reason.contains("not a key of purchased") == true)
        let extra = rejection(#"{"event_id":"e","type":"identified","user_id":"u","identity":"a","revenue":1,"ts":"2026-12-01T10:00:00Z"}"#)
        #expect(extra?.field == "revenue")
        #expect(parser.validate(Event(id: "e", type: .identified, userID: "u", timestamp: Timestamp(rfc3339: "2026-12-01T10:00:00Z")!))?.field == "identity")
    }

    @Test func anAppKeysIdentifyIsAtMostSevenDaysOld() {
        let app = parser.receiving(at: Timestamp(rfc3339: "2026-12-20T00:00:00Z")!, appKey: true)
        let old = #"{"event_id":"e","type":"identified","user_id":"u","identity":"a","ts":"2026-12-01T10:00:00Z"}"#
        #expect(rejection(old, with: app)?.field == "ts")
        #expect(rejection(old, with: parser.receiving(at: Timestamp(rfc3339: "2026-12-20T00:00:00Z")!)) == nil)
    }

    /// App Store tokens are UUIDs compared case-insensitively: stored lowercase; other ids as they are.
    @Test func storeAccountUUIDsAreLowercased() throws {
        let upper = try #require(try parser.parse(line: #"{"event_id":"x","type":"exposure","user_id":"u","experiment":"e","variant":"a","store_account_id":"3F1C2B4A-9D8E-4F7A-8B6C-5D4E3F2A1B0C","ts":"2026-12-01T10:00:00Z"}"#)?.get())
        #expect(upper.storeAccountID == "3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c")
        #expect(StoreAccount.normalized("Play-Account-ID") == "Play-Account-ID")
        #expect(StoreAccount.normalized("3F1C2B4A-9D8E-4F7A-8B6C-5D4E3F2A1B0G") == "3F1C2B4A-9D8E-4F7A-8B6C-5D4E3F2A1B0G")
        let checked = try parser.check(Event(id: "x", type: .exposure, userID: "u", timestamp: Timestamp(microseconds: 0), experiment: "e",
                                             variant: "a", storeAccountID: "ABCDEF01-2345-6789-ABCD-EF0123456789")).get()
        #expect(checked.storeAccountID == "abcdef01-2345-6789-abcd-ef0123456789")
    }

    @Test func theGraphFollowsTheRules() {
        var graph = IdentityGraph()
        func identify(_ user: UserID, _ identity: UserID) -> IdentityRules.Outcome {
            graph.apply(Event(id: EventID("identify:\(identity)"), type: .identified, userID: user,
                              timestamp: Timestamp(microseconds: 0), identity: identity))
        }
        #expect(identify("anon", "a") == .link(anonymous: "anon", into: "a"))
        #expect(identify("anon", "a") == .unchanged)
        #expect(identify("anon", "b") == .conflict)          // its first known id stays
        #expect(identify("a", "b") == .conflict)             // known ids never merge
        #expect(identify("b", "b") == .unchanged)
        #expect(identify("tablet", "a") == .link(anonymous: "tablet", into: "a"))
        #expect(graph.person(of: "tablet") == "a" && graph.person(of: "b") == "b" && graph.conflicts.count == 2)
        // An anonymous id holding a store account brings it along.
        graph.link("token-1", into: "anon2")
        #expect(identify("anon2", "c") == .link(anonymous: "anon2", into: "c"))
        #expect(graph.person(of: "token-1") == "c")
    }
}

/// `IdentityGraph.link` keeps each person's ids beside `personOf` instead of scanning every id:
/// after every link of a random sequence (valid or not) the graph equals the plain scan's.
@Suite struct IdentityGraphLinkTests {
    @Test func linksGiveWhatAScanOfEveryIdGives() {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<20 {
            var graph = IdentityGraph(personOf: round % 2 == 0 ? [:] : ["u1": "u0", "u0": "u0", "u2": "u0"], known: [])
            var scanned = graph.personOf
            for _ in 0..<400 {
                let id = UserID("u\(Int.random(in: 0..<40, using: &rng))"), person = UserID("u\(Int.random(in: 0..<40, using: &rng))")
                guard id != person else { continue }
                graph.link(id, into: person)
                for (member, p) in scanned where p == id { scanned[member] = person }
                scanned[id] = person
                scanned[person] = person
                #expect(graph.personOf == scanned)
                if graph.personOf != scanned { return }
            }
        }
    }
}
