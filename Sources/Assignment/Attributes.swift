import ExperimentDefinitions

/// A request's attributes, as targeting and conditions read them.
///
/// Kept as the members in the order given and found by comparing keys: a request sends a
/// handful, and comparing a few short strings costs far less than hashing each one into a
/// dictionary and hashing again for every lookup (`POST /v1/assign` is the server's hottest path).
public struct Attributes: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// In the order given. A repeated key's last value is the one read, as in a JavaScript object.
    public private(set) var members: [(String, JSONValue)]

    public init(_ members: [(String, JSONValue)] = []) { self.members = members }

    public init(_ dictionary: [String: JSONValue]) { members = dictionary.map { ($0.key, $0.value) } }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { members = elements }

    public subscript(key: String) -> JSONValue? {
        get { members.last { $0.0 == key }?.1 }
        set {
            members.removeAll { $0.0 == key }
            if let newValue { members.append((key, newValue)) }
        }
    }

    /// Each key with the value that is read for it.
    public var dictionary: [String: JSONValue] { Dictionary(members, uniquingKeysWith: { $1 }) }

    public static func == (a: Attributes, b: Attributes) -> Bool { a.dictionary == b.dictionary }
}
