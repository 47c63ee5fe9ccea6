import CopyGeneration
import Foundation
import Webhooks
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--google-certs`, `--googleplay-audience`, `--googleplay-push-account`,
/// `--googleplay-package`, `--googleplay-service-account` and `--googleplay-api-url`: without
/// them `POST /v1/webhooks/googleplay` answers 404.
public struct GooglePlayOptions: Sendable {
    public let verifier: GooglePushVerifier
    /// Reread on SIGHUP.
    public let certificatesPath: String
    public let api: GooglePlayAPI

    public init(verifier: GooglePushVerifier, certificatesPath: String, api: GooglePlayAPI) {
        self.verifier = verifier
        self.certificatesPath = certificatesPath
        self.api = api
    }
}

/// The Google Play lookups over the project's one HTTP client (`BlockingHTTP`).
public struct URLSessionTransport: HTTPTransport {
    public init() {}

    public func send(method: String, url: URL, headers: [(String, String)], body: [UInt8]?, timeout: Double) throws -> (status: Int, body: [UInt8]) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0) }
        switch BlockingHTTP.send(request) {
        case .success(let (data, response)): return ((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](data))
        case .failure(let failure): throw failure
        }
    }
}
