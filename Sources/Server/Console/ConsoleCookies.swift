/// The console's cookies: reading the `Cookie` header, writing `Set-Cookie`.
enum ConsoleCookies {
    /// The session's id.
    static let session = "abctl_session"
    /// A random value set by the sign-in page; the sign-in form's token is its HMAC.
    static let signIn = "abctl_signin"

    /// The value of cookie `name` in a `Cookie` header, if it is there.
    static func value(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingSpaces()
            guard let eq = pair.firstIndex(of: "=") else { continue }
            if pair[..<eq] == name { return String(pair[pair.index(after: eq)...]) }
        }
        return nil
    }

    /// `Set-Cookie` for `name`: `HttpOnly; SameSite=Strict; Path=/`, `Secure` unless `insecure`;
    /// `maxAge` 0 ends it.
    static func set(_ name: String, _ value: String, maxAge: Int, insecure: Bool) -> (String, String) {
        ("Set-Cookie", "\(name)=\(value); Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=Strict" + (insecure ? "" : "; Secure"))
    }
}
