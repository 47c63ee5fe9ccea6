import Webhooks

/// `--appstore-root-ca` and `--appstore-bundle-id`: without them `POST /v1/webhooks/appstore` answers 404.
public struct AppStoreOptions: Sendable {
    public let verifier: AppStoreJWSVerifier
    public let bundleID: String
    /// `--appstore-environment`: Apple's `Production` or `Sandbox`; notifications from the other are ignored.
    public let environment: String

    public init(verifier: AppStoreJWSVerifier, bundleID: String, environment: String = "Production") {
        self.verifier = verifier
        self.bundleID = bundleID
        self.environment = environment
    }
}
