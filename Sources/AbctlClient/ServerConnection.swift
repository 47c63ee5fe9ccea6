import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs to `abctl serve` with URLSession, each call held to its own deadline.
struct ServerConnection: Sendable {
    let baseURL: URL
    let apiKey: String?
    private let session: URLSession

    init(baseURL: URL, apiKey: String?) {
        self.baseURL = baseURL
        self.apiKey = apiKey
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
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        // URLSession's own timeout is a backstop; `withDeadline` holds the call to the deadline exactly.
        request.timeoutInterval = max(1, Double(deadline.components.seconds) + 1)
        let session = self.session
        let sent = request
        do {
            return try await withDeadline(deadline) { try await Self.send(sent, on: session) }
        } catch is DeadlineExceeded {
            throw .timeout(deadline)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// The completion-handler form (available on every platform's Foundation), cancelled with the task.
    private static func send(_ request: URLRequest, on session: URLSession) async throws -> (status: Int, body: [UInt8]) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(status: Int, body: [UInt8]), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: ServerError.unreachable(error.localizedDescription))
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: (http.statusCode, [UInt8](data ?? Data())))
                    } else {
                        continuation.resume(throwing: ServerError.badAnswer("not an HTTP response"))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// Errors in the API's shape, `{"error": {"code", "message"}}`, as a `ServerError`.
    static func statusError(_ status: Int, _ body: [UInt8]) -> ServerError {
        let error = (try? JSONValue.parse(body))?["error"]
        return .status(status, code: error?["code"]?.string, message: error?["message"]?.string)
    }
}

/// The data task of a call, so cancelling the Swift task cancels the request.
private final class TaskBox: @unchecked Sendable {
    // `task` and `cancelled` are only touched while `lock` is held.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionDataTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
