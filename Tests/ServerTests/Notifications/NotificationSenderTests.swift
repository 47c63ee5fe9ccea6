import Foundation
import Server
import Testing
import TestSupport

/// One try of a notification against receivers on 127.0.0.1: what arrives, a redirect
/// not followed, a receiver that hangs cut at the limit.
struct NotificationSenderTests {
    @Test func aTryArrivesWithItsBodyAndHeaders() throws {
        let receiver = try FakeChatServer([.json(204, "")])
        let (status, error) = NotificationSender().post(to: URL(string: receiver.url + "/hook")!, body: Array(#"{"id":"a"}"#.utf8),
                                                        headers: [("Idempotency-Key", "a"), ("Abctl-Signature", "t=1,v1=00")], timeout: 5)
        #expect(status == 204 && error.isEmpty, "\(error)")
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST" && request.path == "/hook" && request.body == Array(#"{"id":"a"}"#.utf8))
        #expect(request.headers["content-type"] == "application/json" && request.headers["idempotency-key"] == "a")
        #expect(request.headers["abctl-signature"] == "t=1,v1=00")
    }

    @Test(arguments: [301, 302, 307, 308])
    func aRedirectIsAFailureAndNotFollowed(_ code: Int) throws {
        let elsewhere = try FakeChatServer([], otherwise: .json(200, "{}"))
        let receiver = try FakeChatServer([.redirect(code, to: elsewhere.url + "/moved")])
        let (status, error) = NotificationSender().post(to: URL(string: receiver.url + "/hook")!, body: Array("{}".utf8), headers: [], timeout: 5)
        #expect(status == code && error == "redirect to \(elsewhere.url)/moved not followed", "\(error)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(receiver.requests.count == 1 && elsewhere.requests.isEmpty)
    }

    @Test func aReceiverThatHangsIsCutAtTheLimit() throws {
        let receiver = try FakeChatServer([.delayed(milliseconds: 5000, .json(200, "{}"))])
        let started = Date()
        let (status, error) = NotificationSender().post(to: URL(string: receiver.url + "/hook")!, body: Array("{}".utf8), headers: [], timeout: 1)
        let took = Date().timeIntervalSince(started)
        #expect(status == 0 && error == "no answer within 1 s", "\(error)")
        #expect(took >= 0.9 && took < 3, "\(took)")
    }
}
