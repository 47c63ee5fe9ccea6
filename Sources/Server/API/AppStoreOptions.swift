import Webhooks

/// `--appstore-root-ca` and `--appstore-bundle-id`: without them `POST /v1/webhooks/appstore` answers 404.
public struct AppStoreOptions: Sendable {
    public let verifier: AppStoreJWSVerifier
    public let bundleID: String

    public init(verifier: AppStoreJWSVerifier, bundleID: String) {
        self.verifier = verifier
        self.bundleID = bundleID
    }
}
