import Foundation
import Server
import Synchronization

/// A browser for the in-process console: it keeps the cookies the console sets, sends its own
/// `Host` and `Origin`, reads a page's `form_token`, and signs in through the form.
final class ConsoleBrowser: Sendable {
    let server: InProcessServer
    let host: String
    let peer: String?
    private let jar = Mutex<[String: String]>([:])

    init(_ server: InProcessServer, host: String = "console.example.com", peer: String? = "192.0.2.10") {
        self.server = server
        self.host = host
        self.peer = peer
    }

    var origin: String { "https://" + host }

    var cookies: [String: String] { jar.withLock { $0 } }

    func setCookie(_ name: String, _ value: String?) { jar.withLock { $0[name] = value } }

    /// A request with the jar's cookies and `Host`; a POST also carries `Origin` unless `origin` says otherwise.
    func request(_ method: String, _ target: String, form: [(String, String)]? = nil, origin: String?? = .none,
                 headers extra: [(String, String)] = []) async -> APIReply {
        var headers: [(String, String)] = [("Host", host)]
        let cookie = jar.withLock { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookie.isEmpty { headers.append(("Cookie", cookie)) }
        let sentOrigin: String? = switch origin {
        case .none: method == "POST" ? self.origin : nil
        case .some(let given): given
        }
        if let sentOrigin { headers.append(("Origin", sentOrigin)) }
        headers += extra
        var body: [UInt8] = []
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Array(form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&").utf8)
        }
        let reply = await server.request(method, target, headerPairs: headers, body: body, peer: peer)
        for line in reply.setCookies {
            let pair = line.split(separator: ";")[0]
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
            let ended = line.contains("Max-Age=0")
            jar.withLock { $0[name] = ended ? nil : value }
        }
        return reply
    }

    /// Opens the sign-in page and posts `key` through its form.
    func signIn(_ key: String, next: String? = nil, headers extra: [(String, String)] = []) async -> APIReply {
        let page = await request("GET", "/login" + (next.map { "?next=" + Self.encode($0) } ?? ""))
        var form = [("form_token", Self.formToken(page.text) ?? ""), ("key", key)]
        if let next { form.append(("next", next)) }
        return await request("POST", "/login", form: form, headers: extra)
    }

    /// The `form_token` of the first form on a page.
    static func formToken(_ html: String) -> String? {
        guard let r = html.range(of: #"name="form_token" value=""#) else { return nil }
        return String(html[r.upperBound...].prefix { $0 != "\"" })
    }

    static func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }
}
