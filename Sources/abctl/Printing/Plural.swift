/// A count with its noun in the right number: "1 experiment", "2 experiments".
enum Plural {
    static func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
