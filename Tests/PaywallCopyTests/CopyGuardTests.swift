import Testing
import ExperimentDefinitions

/// Every guard rule, with lines in several languages.
@Suite struct CopyGuardTests {
    let chorusGuard = CopyGuard(maxWords: 12, forbid: ["?", "!", "\u{2014}"], forbidWords: ["free", "guarantee"], mentionOnce: ["Chorus"], forbidUserName: true)

    func rules(_ line: String, user: String? = nil) -> [String] { chorusGuard.check(line, userName: user).violations.map(\.rule) }

    @Test(arguments: [
        "Chorus names every song on your dawn walk.",
        "Chorus nomme chaque chant lors de ta promenade.",
        "Mit Chorus erkennst du jeden Vogel am Morgen.",
        "Chorus は朝の散歩で聞こえる鳥の声を教えてくれます。",
        "Chorus назовёт каждую птицу на прогулке.",
    ])
    func goodLinesPass(line: String) { #expect(rules(line).isEmpty, "\(line): \(rules(line))") }

    @Test func maxWords() {
        #expect(rules("Chorus " + String(repeating: "walk ", count: 12)) == ["max_words"])
        #expect(rules("Chorus " + String(repeating: "walk ", count: 11)).isEmpty)
    }

    @Test(arguments: [("Chorus hears it all!", "forbid"), ("Why not Chorus?", "forbid"), ("Chorus \u{2014} every song.", "forbid"),
                      ("Try Chorus FREE today.", "forbid_words"), ("Chorus: garantiert, we guarantee it.", "forbid_words")])
    func forbiddenTextAndWords(line: String, rule: String) { #expect(rules(line) == [rule]) }

    @Test func bannedWordsAreWholeWordsOnly() {
        #expect(rules("Chorus frees your ears on every walk.").isEmpty, "'frees' is not 'free'")
    }

    @Test(arguments: [("Every song named on your walk.", 0), ("Chorus and chorus again.", 2), ("CHORUS names birds.", 1), ("Chorus+ names birds.", 1)])
    func mentionOnce(line: String, count: Int) {
        let v = chorusGuard.check(line).violations
        #expect(v.contains { $0.rule == "mention_once" } == (count != 1), "\(line): \(v)")
        if count != 1 { #expect(v.first { $0.rule == "mention_once" }?.message.contains("\(count) times") == true) }
    }

    @Test func theUsersNameIsForbidden() {
        #expect(rules("Ada, Chorus names every song.", user: "Ada") == ["forbid_user_name"])
        #expect(rules("Chorus names every song for José.", user: "josé") == ["forbid_user_name"])
        #expect(rules("Adagio walks with Chorus.", user: "Ada").isEmpty, "a name inside another word is not the name")
        #expect(rules("Ada, Chorus names every song.").isEmpty, "no name known, nothing to forbid")
    }

    @Test func strayJSONQuotesAndBracesAreTrimmedFirst() {
        let v = chorusGuard.check("  {\"\u{201C}Chorus names every song.\u{201D}\"}\n")
        #expect(v.accepted && v.text == "Chorus names every song.")
        #expect(chorusGuard.check("{ }").violations.map(\.rule).contains("empty"))
    }

    @Test func everyBrokenRuleIsNamed() {
        let v = chorusGuard.check("Ada, is it free? Try it!", userName: "Ada")
        #expect(Set(v.violations.map(\.rule)) == ["forbid", "forbid_words", "mention_once", "forbid_user_name"])
    }
}
