import HTTPTransport

/// `GET /assets/{file}`: the stylesheet and the script under their content-hashed names, cached
/// for a year; any other name is 404.
struct ConsoleAssetHandler: Responder {
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard let asset = ConsoleAsset.all.first(where: { $0.fileName == request.captures["file"] }) else {
            return .response(ConsolePage.message(404, title: "Not found", "There is no such file."))
        }
        return .response(HTTPResponse(status: 200, contentType: asset.contentType,
                                      headers: ConsolePage.headers(noStore: false) + [("Cache-Control", "public, max-age=31536000, immutable")],
                                      body: asset.bytes))
    }
}
