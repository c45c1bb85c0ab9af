import Foundation
import Testing
@testable import WebImage

/// The downloader's TLS trust against loopback HTTPS servers whose certificates a private
/// CA signed (Fixtures/tls/private-ca): the CA bundle in place of or beside the system's
/// roots, a client certificate for a server that requires one, and the loading errors.
@Suite(.timeLimit(.minutes(1)))
struct DownloaderTLSTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    func download(_ url: URL, _ change: (inout Downloader.Configuration) -> Void) async -> Result<Data, WebImageError> {
        do {
            let data = try await LoaderTesting.withDownloader(LoaderTesting.config(change)) { downloader in
                try await downloader.load(url, options: DownloadRequestOptions(), progress: nil).data
            }
            return .success(data)
        } catch {
            return .failure(WebImageError(error))
        }
    }

    @Test func aPrivateCAsServerIsRefusedUntilTheCAIsTrusted() async throws {
        let bundle = try PrivateCA.bundle()
        #expect(bundle.count == 1)
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")], serverTLS: try PrivateCA.serverTLS()) { server in
            let url = server.url("/a.png")
            guard case .failure(.network(let reason, _)) = await download(url, { _ in }) else {
                Issue.record("a certificate of an unknown CA was accepted")
                return
            }
            #expect(reason.lowercased().contains("certificate"), "\(reason)")
            let only = try await download(url) { $0.trustRoots = .only(bundle) }.get()
            let beside = try await download(url) { $0.trustRoots = .systemAnd(bundle) }.get()
            // Accepting any certificate still works without the CA.
            let anyCertificate = try await download(url) { $0.allowInvalidCertificates = true }.get()
            #expect([only, beside, anyCertificate] == [png, png, png])
            #expect(server.requestCount("/a.png") == 3)
        }
    }

    @Test func theCABundleReplacesTheOtherRoots() async throws {
        // The self-signed fixture is trusted as its own root, and refused once only the
        // private CA is trusted.
        let selfSigned = try Downloader.CertificateBundle(pemFile: Corpus.fixtures.appendingPathComponent("tls/cert.pem").path)
        let bundle = try PrivateCA.bundle()
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")], tls: true) { server in
            let url = server.url("/a.png")
            let trusted = try await download(url) { $0.trustRoots = .only(selfSigned) }.get()
            #expect(trusted == png)
            guard case .failure = await download(url, { $0.trustRoots = .only(bundle) }) else {
                Issue.record("a certificate outside the bundle was accepted")
                return
            }
        }
    }

    @Test func aServerRequiringAClientCertificateGetsOne() async throws {
        let bundle = try PrivateCA.bundle()
        let identity = try PrivateCA.clientIdentity()
        let tls = try PrivateCA.serverTLS(requiringClientCertificate: true)
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")], serverTLS: tls) { server in
            let url = server.url("/a.png")
            guard case .failure = await download(url, { $0.trustRoots = .only(bundle) }) else {
                Issue.record("the server accepted a client without a certificate")
                return
            }
            #expect(server.requestCount("/a.png") == 0)
            let data = try await download(url) { config in
                config.trustRoots = .only(bundle)
                config.clientIdentity = identity
            }.get()
            #expect(data == png)
            #expect(server.requestCount("/a.png") == 1)
        }
    }

    @Test func aCertificateAndKeyInOneFileMakeAnIdentity() throws {
        let combined = try Data(contentsOf: URL(fileURLWithPath: PrivateCA.path("client.pem")))
            + Data(contentsOf: URL(fileURLWithPath: PrivateCA.path("client-key.pem")))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString).pem")
        try combined.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Downloader.ClientIdentity(certificateFile: file.path, keyFile: file.path) == PrivateCA.clientIdentity())
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefusedWhenLoaded() {
        #expect(throws: WebImageError.invalidConfiguration(
            "the private key in \(PrivateCA.path("server-key.pem")) does not belong to the client certificate"
        )) {
            try Downloader.ClientIdentity(certificateFile: PrivateCA.path("client.pem"), keyFile: PrivateCA.path("server-key.pem"))
        }
    }

    @Test func unreadableOrEmptyFilesAreNamed() throws {
        let missing = "/nonexistent/ca.pem"
        #expect(throws: WebImageError.invalidConfiguration("cannot read the certificate file \(missing): no such file")) {
            try Downloader.CertificateBundle(pemFile: missing)
        }
        #expect(throws: WebImageError.invalidConfiguration("\(PrivateCA.path("client-key.pem")) holds no readable PEM certificate")) {
            try Downloader.CertificateBundle(pemFile: PrivateCA.path("client-key.pem"))
        }
        #expect(throws: WebImageError.invalidConfiguration("the key PEM data holds no readable unencrypted PEM private key")) {
            try Downloader.ClientIdentity(certificatePEM: Data(contentsOf: URL(fileURLWithPath: PrivateCA.path("client.pem"))), keyPEM: Data("junk".utf8))
        }
    }
}
