import Foundation
import Testing
import TestSupport

/// The answers of the routes that need no secrets, checked against the response schema
/// `/openapi.json` gives for their status, by the reference JSON Schema validator (Python's
/// `jsonschema`, in the test venv), as tools/schemathesis.sh checks them against a live server.
/// The shipped folder's global holdout (an experiment file without variants) is among the
/// definitions `/v1/experiments` echoes.
@Suite struct APIAnswersMatchTheDocumentTests {
    static let python = Abctl.packageRoot + "/.venv/bin/python"

    /// Validates each `(method, path template, status, body)` against the document; prints one
    /// line per answer that does not match.
    static let validate = #"""
    import json, sys
    from jsonschema import Draft202012Validator
    doc = json.load(open(sys.argv[1]))
    problems = []
    for method, template, status, body in json.load(open(sys.argv[2])):
        response = doc["paths"][template][method]["responses"][str(status)]
        # A shared answer (404, 503) is a reference into components.responses.
        base = response.get("$ref") or "/".join(["#", "paths", template.replace("~", "~0").replace("/", "~1"), method, "responses", str(status)])
        pointer = base + "/content/application~1json/schema"
        schema = dict(doc)
        schema["$ref"] = pointer
        for error in Draft202012Validator(schema).iter_errors(json.loads(body)):
            problems.append(f"{method.upper()} {template} {status}: {error.message} at {list(error.absolute_path)}")
    print("\n".join(problems))
    """#

    @Test func answersMatchTheirResponseSchemas() async throws {
        let server = try InProcessServer()
        let document = await server.request("GET", "/openapi.json")
        let answers: [(String, String, String)] = [
            ("get", "/healthz", "/healthz"),
            ("get", "/v1/experiments", "/v1/experiments"),
            ("get", "/v1/diagnostics/copy", "/v1/diagnostics/copy"),
            ("get", "/v1/experiments/{id}/report", "/v1/experiments/chorus-paywall-copy/report"),
            ("get", "/v1/experiments/{id}/report", "/v1/experiments/no-such-thing/report"),
            ("get", "/v1/experiments/{id}/report", "/v1/experiments/chorus-paywall-copy/report?alpha=0.7"),
        ]
        var cases: [[Any]] = []
        for (method, template, target) in answers {
            let reply = await server.request(method.uppercased(), target)
            cases.append([method, template, reply.status, reply.text])
        }
        #expect(cases.map { $0[2] as! Int } == [200, 200, 200, 200, 404, 400])
        let folder = TemporaryFolder()
        try Data(document.body).write(to: URL(fileURLWithPath: folder.path + "/openapi.json"))
        try JSONSerialization.data(withJSONObject: cases).write(to: URL(fileURLWithPath: folder.path + "/answers.json"))
        let out = try await ChildProcess.run(Self.python, ["-c", Self.validate, folder.path + "/openapi.json", folder.path + "/answers.json"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "", "\(out.stdout)")
    }
}
