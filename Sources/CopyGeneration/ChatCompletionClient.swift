import ExperimentDefinitions
import Dispatch
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request for one line of copy: the recipe's instructions and prompt, and its options.
public struct ChatRequest: Sendable, Equatable {
    public var system: String
    public var user: String
    public var temperature: Double?
    public var maxTokens: Int?

    public init(system: String, user: String, temperature: Double? = nil, maxTokens: Int? = nil) {
        self.system = system
        self.user = user
        self.temperature = temperature
        self.maxTokens = maxTokens
    }
}

/// Something that answers a chat request with text: an OpenAI-compatible server, or a test double.
///
/// Blocking on purpose: generation runs on a thread of its own, never on a shared pool, so
/// callers blocked waiting for a line cannot starve the work they wait for.
public protocol ChatCompleting: Sendable {
    func complete(_ request: ChatRequest) throws -> String
}

/// Why a model call failed, kept for `GET /v1/diagnostics/copy`.
public struct ChatCompletionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: FallbackReason
    public var detail: String
    public var description: String { "\(reason.rawValue): \(detail)" }
}

/// Calls `POST {baseURL}/v1/chat/completions` as llama.cpp's server, vLLM and Ollama speak it.
public struct OpenAICompatibleClient: ChatCompleting {
    public let endpoint: URL
    public let model: String
    public let timeout: TimeInterval
    /// Sent as `Authorization: Bearer KEY` when set (hosted endpoints want one; local servers do not).
    let apiKey: String?

    /// `baseURL` is the server root (`http://127.0.0.1:8080`); a URL already ending in
    /// `/chat/completions` is used as it is.
    public init(baseURL: URL, model: String, apiKey: String? = nil, timeout: TimeInterval = 10) {
        let text = baseURL.absoluteString
        if text.hasSuffix("/chat/completions") {
            endpoint = baseURL
        } else {
            let root = text.hasSuffix("/") ? String(text.dropLast()) : text
            endpoint = URL(string: root.hasSuffix("/v1") ? root + "/chat/completions" : root + "/v1/chat/completions")!
        }
        self.model = model
        self.apiKey = apiKey
        self.timeout = timeout
    }

    public func complete(_ request: ChatRequest) throws -> String {
        var body: [(String, JSONValue)] = [
            ("model", .string(model)),
            ("messages", .array([.object([("role", .string("system")), ("content", .string(request.system))]),
                                 .object([("role", .string("user")), ("content", .string(request.user))])])),
            ("stream", .bool(false)),
        ]
        if let t = request.temperature { body.append(("temperature", .number(t))) }
        if let m = request.maxTokens { body.append(("max_tokens", .number(Double(m)))) }
        var http = URLRequest(url: endpoint, timeoutInterval: timeout)
        http.httpMethod = "POST"
        http.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let apiKey { http.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        http.httpBody = Data(JSONValue.object(body).serialized().utf8)
        let (data, response) = try send(http)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw ChatCompletionError(reason: .error, detail: "HTTP \(status) from \(endpoint.absoluteString)")
        }
        guard let message = Self.firstMessage(data) else {
            throw ChatCompletionError(reason: .error, detail: "answer is not a chat completion (\(data.count) bytes)")
        }
        guard case .string(let content)? = Self.member("content", of: message),
              !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ChatCompletionError(reason: .emptyAnswer, detail: "the model answered nothing")
        }
        return content
    }

    /// `choices[0].message` of a chat completion, read with the project's JSON reader; nil when the
    /// answer is not JSON or has no such object.
    static func firstMessage(_ data: Data) -> JSONValue? {
        guard let root = try? JSONReader.parse([UInt8](data)).value,
              case .array(let choices)? = member("choices", of: root), let first = choices.first,
              let message = member("message", of: first), case .object = message else { return nil }
        return message
    }

    static func member(_ key: String, of value: JSONValue) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// `BlockingHTTP.send`, its failures as chat-completion errors.
    private func send(_ request: URLRequest) throws -> (Data, URLResponse?) {
        switch BlockingHTTP.send(request) {
        case .success(let answer): return answer
        case .failure(.timedOut): throw ChatCompletionError(reason: .timeout, detail: "no answer within \(timeout) s")
        case .failure(.failed(let detail)): throw ChatCompletionError(reason: .error, detail: detail)
        }
    }
}

/// The project's one HTTP client: a request through URLSession, waited for on the calling
/// thread (callers run it on threads of their own, never on a shared pool). Used for chat
/// completions and by the server for the Google Play lookups.
public enum BlockingHTTP {
    public enum Failure: Error, Sendable, Equatable {
        /// No answer within the request's `timeoutInterval`.
        case timedOut
        case failed(String)
    }

    /// Gives up after the request's `timeoutInterval` whatever URLSession does with it
    /// (swift-corelibs-foundation does not end a request whose server sends nothing).
    public static func send(_ request: URLRequest) -> Result<(Data, URLResponse?), Failure> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<(Data, URLResponse?), Failure>?>(nil)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            let result: Result<(Data, URLResponse?), Failure>
            if let error = error as? URLError, error.code == .timedOut {
                result = .failure(.timedOut)
            } else if let error {
                result = .failure(.failed("request failed: \(error.localizedDescription)"))
            } else {
                result = .success((data ?? Data(), response))
            }
            outcome.withLock { if $0 == nil { $0 = result } }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + request.timeoutInterval) == .timedOut {
            outcome.withLock { if $0 == nil { $0 = .failure(.timedOut) } }
            task.cancel()
        }
        return outcome.withLock { $0! }
    }
}
