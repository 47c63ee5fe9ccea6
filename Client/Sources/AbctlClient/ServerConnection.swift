import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs to `abctl serve` with URLSession, each call held to its own deadline.
struct ServerConnection: Sendable {
    let baseURL: URL
    let apiKey: String?
    /// Hears the `Date` header of every answer.
    let clock: ServerClock?
    private let session: URLSession

    init(baseURL: URL, apiKey: String?, clock: ServerClock? = nil) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.clock = clock
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// The status and body of `POST path`, or why there was none within `deadline`.
    func post(_ path: String, body: [UInt8], contentType: String, deadline: Duration) async throws(ServerError) -> (status: Int, body: [UInt8]) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        return try await send(request, deadline: deadline)
    }

    /// The status and body of `GET path` (an open route such as `healthz`), or why there was none.
    func get(_ path: String, deadline: Duration) async throws(ServerError) -> (status: Int, body: [UInt8]) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "GET"
        return try await send(request, deadline: deadline)
    }

    private func send(_ request: URLRequest, deadline: Duration) async throws(ServerError) -> (status: Int, body: [UInt8]) {
        var request = request
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        // URLSession's own timeout is a backstop. The deadline itself is a race between the
        // URLSession callback and a Dispatch timer, on their own threads: which came first in real
        // time decides, however busy Swift's shared pool is.
        request.timeoutInterval = max(1, Double(deadline.components.seconds) + 1)
        let session = self.session
        let clock = self.clock
        let sent = request
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(status: Int, body: [UInt8]), any Error>) in
                let race = Race(continuation)
                let task = session.dataTask(with: sent) { data, response, error in
                    if let error {
                        race.finish(.failure(ServerError.unreachable(error.localizedDescription)))
                    } else if let http = response as? HTTPURLResponse {
                        if let clock, let date = http.value(forHTTPHeaderField: "Date") { clock.observe(dateHeader: date) }
                        race.finish(.success((http.statusCode, [UInt8](data ?? Data()))))
                    } else {
                        race.finish(.failure(ServerError.badAnswer("not an HTTP response")))
                    }
                }
                race.expire(after: deadline) { task.cancel() }
                task.resume()
            }
        } catch is DeadlineExceeded {
            throw .timeout(deadline)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// Errors in the API's shape, `{"error": {"code", "message"}}`, as a `ServerError`.
    static func statusError(_ status: Int, _ body: [UInt8]) -> ServerError {
        let error = (try? JSONValue.parse(body))?["error"]
        return .status(status, code: error?["code"]?.string, message: error?["message"]?.string)
    }
}
