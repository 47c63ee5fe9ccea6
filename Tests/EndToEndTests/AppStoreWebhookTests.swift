import Foundation
import TestSupport
import Testing

/// `abctl serve`'s App Store flags go together and name a bad root. The webhook itself
/// (notifications judged by Apple's own library first) is checked in process:
/// ServerTests/InProcess/APIAppStoreWebhookTests.
@Suite(.timeLimit(.minutes(3)))
struct AppStoreWebhookTests {
    static let bundle = "com.example.chorus"

    @Test func offWithoutItsFlags() async throws {
        let half = try await Abctl.run(["serve", "--port", "0", "--appstore-bundle-id", Self.bundle])
        #expect(half.status == 2)
        #expect(half.stderr.contains("--appstore-root-ca"))
        let folder = TemporaryFolder()
        let notCertificate = folder.write("root.pem", "not a certificate\n")
        let bad = try await Abctl.run(["serve", "--port", "0", "--appstore-root-ca", notCertificate, "--appstore-bundle-id", Self.bundle])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("no certificate"))
    }
}
