import Events
import ExperimentDefinitions
import Foundation

/// What is POSTed for a notification: the JSON form, or `{"text"}` for a chat's incoming webhook.
public enum NotificationBody {
    /// `{"id", "type", "experiment", "at", "text", "url", "details"}`; `url` only with a public URL.
    public static func json(_ n: OutboxNotification, publicURL: URL?) -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("id", .string(n.id)), ("type", .string(n.type)), ("experiment", .string(n.experiment)),
            ("at", .string(n.at.rfc3339)), ("text", .string(n.text)),
        ]
        if let link = link(n.experiment, publicURL: publicURL) { members.append(("url", .string(link))) }
        members.append(("details", (try? JSONReader.parse(Array(n.details.utf8)).value) ?? .object([])))
        return Array(JSONValue.object(members).serialized().utf8)
    }

    /// `{"text"}`: the line, escaped as Slack's message text asks (`&`, `<`, `>`), with the link to
    /// the console's page when there is one (`<URL|open the experiment>`).
    public static func slack(_ n: OutboxNotification, publicURL: URL?) -> [UInt8] {
        var text = n.text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        if let link = link(n.experiment, publicURL: publicURL) { text += " <\(link)|open \(n.experiment)>" }
        return Array(JSONValue.object([("text", .string(text))]).serialized().utf8)
    }

    /// The experiment's console page under `publicURL`: `…/experiments/ID`.
    public static func link(_ experiment: String, publicURL: URL?) -> String? {
        guard let publicURL else { return nil }
        var base = publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let id = experiment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? experiment
        return base + "/experiments/" + id
    }
}
