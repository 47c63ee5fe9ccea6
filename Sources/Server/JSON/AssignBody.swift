import Assignment
import ExperimentDefinitions

/// The checked fields of a `POST /v1/assign` body.
struct AssignBody: Sendable, Equatable {
    /// The body's fields, in the order `BodyParser.assignBody` numbers them.
    static let fields = BodyParser.KeyTable(["user_id", "attributes", "variables", "signals", "experiments", "on_device_model", "placement"])
    /// The attributes targeting reads, sent with nearly every request.
    static let targetingKeys = BodyParser.KeyTable(["platform", "country", "language", "app_version", "new_user"])

    /// A known attribute of the wrong type (`platform`, `country`, `language`, `app_version`
    /// strings, `new_user` a boolean; null is absent): what it must be, else nil. Targeting would
    /// otherwise just not match, answering `reason: targeting` for a client's bug.
    static func knownAttributeType(_ name: String, _ value: JSONValue) -> String? {
        switch (name, value) {
        case (_, .null): return nil
        case ("platform", .string), ("country", .string), ("language", .string), ("app_version", .string): return nil
        case ("platform", _), ("country", _), ("language", _), ("app_version", _): return "a string"
        case ("new_user", .bool): return nil
        case ("new_user", _): return "a boolean"
        default: return nil
        }
    }

    var userID: UserID
    var attributes: Attributes = [:]
    /// In body order; every value is a string.
    var variables: [(String, JSONValue)] { variablesSource.members }
    var signals: [(String, JSONValue)] { signalsSource.members }
    fileprivate var variablesSource = Members.read([])
    fileprivate var signalsSource = Members.read([])
    var experiments: [String]? = nil
    /// `placement` instead of `experiments`: the answer is that placement's.
    var placement: String? = nil
    var onDeviceModel = true

    init(userID: UserID) { self.userID = userID }

    /// Reads a body: in one pass straight into the fields when it has the usual shape, otherwise
    /// through `JSONBody`, whose checks name the exact problem.
    init(_ body: [UInt8]) throws(APIError) {
        if let direct = Self.direct(body) { self = direct } else { try self.init(general: JSONBody(body)) }
    }

    /// The general path: any body, every error named.
    init(general body: JSONBody) throws(APIError) {
        try body.only(Self.fields.strings)
        userID = UserID(try body.string("user_id"))
        if let refusal = userID.refusal { throw APIError.badRequest("invalid_field", "'user_id' \(refusal)", field: "user_id") }
        let attributeMembers = try body.members("attributes")
        for (name, value) in attributeMembers {
            if let expected = Self.knownAttributeType(name, value) { throw JSONBody.wrongType("attributes.\(name)", expected, value) }
        }
        attributes = Attributes(attributeMembers)
        let variables = try body.members("variables")
        for (name, value) in variables {
            guard case .string = value else { throw JSONBody.wrongType("variables.\(name)", "a string", value) }
        }
        variablesSource = .read(variables)
        signalsSource = .read(try body.members("signals"))
        experiments = try body.optionalStringArray("experiments")
        onDeviceModel = try body.optionalBool("on_device_model") ?? true
        placement = try body.optionalString("placement")
        if placement != nil && experiments != nil {
            throw APIError.badRequest("placement_and_experiments", "send 'placement' or 'experiments', not both", field: "placement")
        }
    }

    /// The fast path (assign is the server's hottest route): no JSON tree, no key strings, no
    /// lookups. It answers only bodies the general path accepts, with the same values; for
    /// anything unusual (a syntax error, an unknown, repeated or escaped key, a missing or
    /// mistyped field, a byte-order mark) it gives nil and the general path decides.
    static func direct(_ body: [UInt8]) -> AssignBody? {
        body.withUnsafeBufferPointer { buffer in
            var parser = BodyParser(bytes: buffer)
            return (try? parser.assignBody(of: body)) ?? nil
        }
    }

    /// An object's members, read, or still JSON: most answers need neither `variables` nor
    /// `signals` (only template and AI paywalls read them), so the direct path checks them and
    /// leaves them as bytes until asked.
    fileprivate enum Members: Sendable {
        case read([(String, JSONValue)])
        /// An object already checked by `BodyParser.skipObject` at depth 2, at `start` in `body`.
        case json(body: [UInt8], start: Int)

        var members: [(String, JSONValue)] {
            switch self {
            case .read(let members): return members
            case .json(let body, let start):
                return body.withUnsafeBufferPointer { buffer in
                    var parser = BodyParser(bytes: buffer)
                    parser.i = start
                    // Cannot fail: the same checks passed when the body was read.
                    guard case .object(let members)? = try? parser.object(depth: 2) else { return [] }
                    return members
                }
            }
        }
    }

    static func == (a: AssignBody, b: AssignBody) -> Bool {
        a.userID == b.userID && a.attributes == b.attributes && JSONValue.object(a.variables) == .object(b.variables)
            && JSONValue.object(a.signals) == .object(b.signals) && a.experiments == b.experiments && a.onDeviceModel == b.onDeviceModel && a.placement == b.placement
    }
}

extension BodyParser {
    /// `whole` is the array `bytes` points into (kept by the unread members).
    fileprivate mutating func assignBody(of whole: [UInt8]) throws(SyntaxError) -> AssignBody? {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var body = AssignBody(userID: "")
        var seen = 0
        repeat {
            skipWhitespace()
            guard let field = plainKey(among: AssignBody.fields.names), seen & (1 << field) == 0 else { return nil }
            seen |= 1 << field
            try colon()
            guard i < bytes.count else { return nil }
            let isNull = bytes[i] == UInt8(ascii: "n")
            if isNull { try literal("null") }
            switch field {
            case 0:   // user_id: a non-empty string
                guard !isNull, bytes[i] == UInt8(ascii: "\"") else { return nil }
                body.userID = UserID(try string())
                if body.userID.isEmpty || body.userID.refusal != nil { return nil }
            case 1:   // attributes: an object
                if isNull { break }
                guard bytes[i] == UInt8(ascii: "{") else { return nil }
                var members: [(String, JSONValue)] = []
                members.reserveCapacity(8)
                // A known attribute of the wrong type: the general path names it.
                guard try forEachMember(depth: 2, known: AssignBody.targetingKeys, { key, value in
                    members.append((key, value))
                    return AssignBody.knownAttributeType(key, value) == nil
                }) else { return nil }
                body.attributes = Attributes(members)
            case 2, 3:   // variables (an object of strings) and signals (an object), kept as JSON
                if isNull { break }
                let start = i
                guard bytes[i] == UInt8(ascii: "{"), try skipObject(depth: 2, stringValues: field == 2) else { return nil }
                let source = AssignBody.Members.json(body: whole, start: start)
                if field == 2 { body.variablesSource = source } else { body.signalsSource = source }
            case 4:   // experiments: an array of strings
                if isNull { break }
                guard bytes[i] == UInt8(ascii: "["), case .array(let items) = try array(depth: 2) else { return nil }
                var ids: [String] = []
                for item in items {
                    guard case .string(let id) = item else { return nil }
                    ids.append(id)
                }
                body.experiments = ids
            case 6:   // placement: a string (with experiments too: the general path names the problem)
                if isNull { break }
                guard bytes[i] == UInt8(ascii: "\""), body.experiments == nil else { return nil }
                body.placement = try string()
            default:  // on_device_model: a boolean
                if isNull { break }
                guard bytes[i] == UInt8(ascii: "t") || bytes[i] == UInt8(ascii: "f"), case .bool(let b) = try value(depth: 1) else { return nil }
                body.onDeviceModel = b
            }
        } while try !close(UInt8(ascii: "}"))
        skipWhitespace()
        guard i == bytes.count, seen & 1 != 0, body.placement == nil || body.experiments == nil else { return nil }
        return body
    }
}
