import HTTPTransport
import Testing
@testable import Server

@Suite struct RouterTests {
    let router = Router(APIServer.routes.map { Router.Route($0, responder: ClosureResponder { _ in .response(HTTPResponse(status: 200, body: [])) }) })

    @Test func matchesPatternsAndCaptures() {
        guard case .found(let route, let captures) = router.match(method: "GET", path: "/v1/experiments/chorus%2Dx/report") else {
            Issue.record("no match"); return
        }
        #expect(route.pattern == "/v1/experiments/{id}/report")
        #expect(captures["id"] == "chorus-x")
    }

    @Test(arguments: ["/v1/assign", "/v1/assign/", "//v1//assign"])
    func literalRoutesMatchWithOrWithoutExtraSlashes(path: String) {
        guard case .found(let route, let captures) = router.match(method: "POST", path: path) else {
            Issue.record("no match for \(path)"); return
        }
        #expect(route.pattern == "/v1/assign")
        #expect(captures.isEmpty)
    }

    @Test func wrongMethodListsTheAllowedOnes() {
        guard case .wrongMethod(let pattern, let allowed) = router.match(method: "GET", path: "/v1/assign") else {
            Issue.record("expected 405"); return
        }
        #expect(pattern == "/v1/assign")
        #expect(allowed == ["POST"])
    }

    @Test(arguments: ["/", "/v1", "/v1/assign/x", "/v1/experiments//report", "/v1/experiments/%zz/report"])
    func unknownPathsAreNotFound(path: String) {
        guard case .notFound = router.match(method: "GET", path: path) else { Issue.record("expected 404 for \(path)"); return }
    }

    @Test func errorsMapToStatusInOnePlace() {
        let cases: [(APIError.Kind, Int)] = [(.badRequest, 400), (.unauthorized, 401), (.forbidden, 403), (.notFound, 404),
                                             (.methodNotAllowed(allowed: ["GET"]), 405), (.payloadTooLarge, 413), (.headersTooLarge, 431),
                                             (.unprocessable, 422), (.unavailable, 503)]
        for (kind, status) in cases { #expect(ErrorResponses.status(for: kind) == status) }
        struct Secret: Error { var password = "hunter2" }
        let response = ErrorResponses.response(for: Secret(), route: "/x", log: .shared)
        #expect(response.status == 500)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("hunter2"))
    }
}
