import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// POSTs one notification and says what came of it: the status (0: no answer) and, when it is not
/// a 2xx, why in words. A redirect is not followed (a 3xx is a failure); a try is cut at its limit
/// whatever URLSession does. Blocks the calling thread: the notifier's own, never a request thread.
public final class NotificationSender: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: `session` is set once in init and URLSession is thread-safe.
    private var session: URLSession!

    override public init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Refuses every redirect: the 3xx answer itself completes the task.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// POSTs `body` with JSON's content type and `headers`; `status` 0 when no answer came within `timeout`.
    public func post(to url: URL, body: [UInt8], headers: [(String, String)], timeout: Double) -> (status: Int, error: String) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("abctl", forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = Data(body)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(Int, String)?>(nil)
        let task = session.dataTask(with: request) { _, response, error in
            let result: (Int, String)
            if let error {
                result = (0, "request failed: \(error.localizedDescription)")
            } else {
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                let location = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location")
                switch status {
                case 200..<300: result = (status, "")
                case 300..<400: result = (status, "redirect to \(location ?? "nowhere") not followed")
                default: result = (status, "answered \(status)")
                }
            }
            outcome.withLock { if $0 == nil { $0 = result } }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            outcome.withLock { if $0 == nil { $0 = (0, "no answer within \(Int(timeout)) s") } }
            task.cancel()
        }
        return outcome.withLock { $0! }
    }
}
