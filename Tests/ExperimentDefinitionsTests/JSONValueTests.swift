import Testing
@testable import ExperimentDefinitions

@Test func objectEqualityIsOrderSensitive() {
    #expect(JSONValue.object([("a", .null)]) == .object([("a", .null)]))
    #expect(JSONValue.object([("a", .null), ("b", .bool(true))]) != .object([("b", .bool(true)), ("a", .null)]))
}
