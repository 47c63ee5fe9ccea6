/// Who is reading a console page: a signed-in session, or anyone on loopback when the server
/// has no keys.
struct ConsoleViewer: Sendable {
    /// nil on a server without keys (no session, nothing to sign out of).
    var sessionID: String?
    /// The key's name; nil without keys.
    var name: String?
    var scopes: Set<APIKeys.Scope>
    /// The `form_token` every form of the page carries; nil without a session.
    var formToken: String?
    /// The session's key as it keeps it (the creator of a share link); nil without a session.
    var keyHMAC: String? = nil
}
