import HTTPTransport
import Reporting

/// A console page: the HTML around a page's content (the stylesheet linked, the bar with who is
/// signed in and the sign-out form) and the headers every console answer carries. No inline
/// script or style; every text from a file, an event or a request goes through `escape`.
enum ConsolePage {
    static let contentSecurityPolicy = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Escapes text for element content and quoted attribute values.
    static func escape(_ s: String) -> String { HTMLReportRenderer.escape(s) }

    /// The headers of every console answer; a page also `Cache-Control: no-store`.
    static func headers(noStore: Bool) -> [(String, String)] {
        var h = [("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
                 ("Referrer-Policy", "no-referrer")]
        if noStore { h.append(("Cache-Control", "no-store")) }
        return h
    }

    /// A whole page: `title` and `main` (HTML already escaped where written).
    static func html(title: String, viewer: ConsoleViewer?, main: String) -> String {
        var bar = "<nav class=\"bar\" aria-label=\"Console\"><span><a href=\"/\"><strong>abctl</strong></a> · <a href=\"/\">Experiments</a> · <a href=\"/placements\">Placements</a></span>"
        if let viewer, let token = viewer.formToken {
            bar += "<span class=\"who\">signed in as \(escape(viewer.name ?? ""))</span>"
            bar += "<form method=\"post\" action=\"/logout\"><input type=\"hidden\" name=\"form_token\" value=\"\(escape(token))\"><button type=\"submit\">Sign out</button></form>"
        }
        return document(title: title, top: bar + "</nav>", main: main)
    }

    /// The HTML around a page: the head (the stylesheet and the script, by their hashed paths), a
    /// link that skips to the content for keyboard users, `top` (the bar, or nothing) and `main`.
    /// Under `Referrer-Policy: no-referrer` a browser posts a form with `Origin: null`, which every
    /// POST refuses: the page's own policy, `same-origin`, lets it send its origin to this console
    /// and still nothing to any other site.
    static func document(title: String, top: String, main: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="same-origin">
        <title>\(escape(title)) — abctl</title>
        <link rel="stylesheet" href="\(ConsoleStylesheet.asset.path)">
        <script src="\(ConsoleScript.asset.path)" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to the content</a>
        \(top)
        <main id="main" tabindex="-1">
        \(main)
        </main>
        </body>
        </html>

        """
    }

    /// An HTML answer with the console's headers.
    static func response(_ status: Int, _ html: String, noStore: Bool = true, extra: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", headers: headers(noStore: noStore) + extra, body: Array(html.utf8))
    }

    /// A page of one message: a refusal, a missing experiment, a busy server.
    static func message(_ status: Int, title: String, _ text: String, viewer: ConsoleViewer? = nil, extra: [(String, String)] = []) -> HTTPResponse {
        response(status, html(title: title, viewer: viewer, main: "<h1>\(escape(title))</h1><p>\(escape(text))</p><p><a href=\"/\">Every experiment</a></p>"),
                 extra: extra)
    }

    /// 303 to `location` (a local path), with the console's headers.
    static func redirect(_ location: String, extra: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: 303, contentType: "text/plain; charset=utf-8", headers: headers(noStore: true) + [("Location", location)] + extra, body: [])
    }

    /// `%XX` for every byte of `s` outside unreserved characters and `/`, for a query value.
    static func percentEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(decoding: Digest.hex([b]), as: UTF8.self).uppercased()
            }
        }
        return out
    }
}
