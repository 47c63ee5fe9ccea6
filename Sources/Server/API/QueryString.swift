/// A request's query string as (name, value) pairs.
enum QueryString {
    /// `a=1&b=2` percent-decoded (`+` is a space); 400 when malformed.
    static func pairs(_ query: String?) throws(APIError) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        var pairs: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let plus = { (s: Substring) in Substring(s.replacingOccurrences(of: "+", with: " ")) }
            guard let name = Router.percentDecode(plus(parts[0])), !name.isEmpty,
                  let value = Router.percentDecode(plus(parts.count > 1 ? parts[1] : "")) else {
                throw APIError(.badRequest, code: "invalid_parameter", "malformed query string", field: "query")
            }
            pairs.append((name, value))
        }
        return pairs
    }
}
