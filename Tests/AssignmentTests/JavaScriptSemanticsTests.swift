import ExperimentDefinitions
import Testing
@testable import Assignment

/// The JS coercions behind conditions, beyond what the spec file covers. Expected strings are
/// what `String(x)` prints in JavaScript (node).
@Suite struct JavaScriptSemanticsTests {
    @Test(arguments: [
        (0.0, "0"), (-0.0, "0"), (10, "10"), (1.5, "1.5"), (-2.25, "-2.25"), (0.1, "0.1"), (1e21, "1e+21"),
        (1.2345678901234568e20, "123456789012345680000"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (0.000001, "0.000001"),
        (123.456, "123.456"), (9007199254740992, "9007199254740992"), (2.5e300, "2.5e+300"),
    ])
    func numberToString(_ d: Double, _ expected: String) {
        #expect(JS.numberToString(d) == expected)
    }

    @Test(arguments: [
        ("", 0.0), ("  42 ", 42), ("0x1F", 31), ("1e3", 1000), ("-1.5", -1.5), ("Infinity", .infinity),
    ])
    func stringToNumber(_ s: String, _ expected: Double) {
        #expect(JS.stringToNumber(s) == expected)
    }

    @Test func stringToNumberNaN() {
        for s in ["abc", "1.2.3", "inf", "nan", "12px"] { #expect(JS.stringToNumber(s).isNaN, "\(s)") }
    }

    @Test func plainValuesCoerceLikeJavaScript() throws {
        func check(_ condition: JSONValue, _ value: JSONValue, _ expected: Bool) throws {
            let c = try Condition(.object([("x", condition)]))
            #expect(c.matches(["x": value]) == expected, "\(condition) vs \(value)")
        }
        try check(.string("10"), .number(10), true)           // value + "" === "10"
        try check(.number(1), .string("1"), true)             // value * 1 === 1
        try check(.number(0), .string(""), true)              // "" * 1 === 0
        try check(.bool(true), .string("yes"), true)          // !!"yes"
        try check(.bool(false), .number(0), true)
        try check(.string("a,b"), .array([.string("a"), .string("b")]), true)
        try check(.object([("$eq", .number(1))]), .string("1"), false)   // === is strict
        try check(.object([("$in", .array([.number(1)]))]), .string("1"), false)
        try check(.object([("$gt", .string("B"))]), .string("a"), true)  // "a" > "B" by code unit
        try check(.object([("$lt", .string("\u{FF61}"))]), .string("😀"), true)  // surrogates sort below U+FF61
        try check(.object([("$regex", .string("^1"))]), .number(15), true)
        try check(.object([("$regex", .string("^n"))]), .null, false)
        try check(.object([("$elemMatch", .object([("$eq", .number(0))]))]), .array([.number(0)]), true)
        try check(.object([("$size", .number(2))]), .array([.null, .null]), true)
        try check(.object([("$vgt", .string("2.0.0"))]), .string("10.0.0"), true)
    }

    @Test func pathsReadNestedObjectsAndArrays() throws {
        let c = try Condition(.object([("a.b.1", .string("y")), ("a.b.length", .number(2))]))
        #expect(c.matches(["a": .object([("b", .array([.string("x"), .string("y")]))])]))
        #expect(!c.matches(["a": .object([("b", .array([.string("y")]))])]))
        #expect(throws: ConditionError.self) { try Condition(.array([])) }
    }
}

@Suite struct ConditionLintTests {
    @Test func understoodConditionsHaveNoProblems() throws {
        for c in Cases.section("evalCondition") {
            let a = c.array
            let name = a[0].string!
            // Cases that are malformed on purpose.
            if name.contains("unknown operator") || name.contains("$regex invalid") || name.contains("not array") { continue }
            #expect(Condition.problems(in: a[1]).isEmpty, "\(name): \(Condition.problems(in: a[1]))")
        }
    }

    @Test func problemsNameTheirPath() throws {
        let json = try TestJSON.parse("""
        {"$or": [{"age": {"$gt": 3}}, {"name": {"$regx": "a"}}], "ua": {"$regex": "(["}, "tags": {"$in": "a"},
         "t": {"$type": "int"}, "$groups": {"$elemMatch": {"$eq": "a"}}, "list": {"$elemMatch": {"x": {"$size": {"$foo": 1}}}}}
        """)
        #expect(Condition.problems(in: json) == [
            "condition.$or[1].name.$regx: unknown operator '$regx'",
            "condition.ua.$regex: the regular expression '([' does not compile",
            "condition.tags.$in: expects a list",
            "condition.t.$type: expects one of array, boolean, null, number, object, string",
            "condition.list.$elemMatch.x.$size.$foo: unknown operator '$foo'",
        ])
    }
}
