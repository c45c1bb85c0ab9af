import Foundation
import NIOSSL
import WebImage

/// The TEST-ONLY private certificate authority of Fixtures/tls/private-ca (made by its
/// `make_private_ca.sh`): its certificate, a server certificate for 127.0.0.1 and a client
/// certificate it signed, and the TLS configurations of loopback servers that use them.
///
/// ```swift
/// try await LoopbackServer.with(routes, serverTLS: try PrivateCA.serverTLS()) { server in ... }
/// ```
enum PrivateCA {
    /// The path of one of the CA's files (`ca.pem`, `server.pem`, `client-key.pem`, ...).
    static func path(_ name: String) -> String {
        Corpus.fixtures.appendingPathComponent("tls/private-ca/\(name)").path
    }

    /// The CA's certificate as the downloader's trust bundle.
    static func bundle() throws -> Downloader.CertificateBundle {
        try Downloader.CertificateBundle(pemFile: path("ca.pem"))
    }

    /// The client certificate and key the CA signed.
    static func clientIdentity() throws -> Downloader.ClientIdentity {
        try Downloader.ClientIdentity(certificateFile: path("client.pem"), keyFile: path("client-key.pem"))
    }

    /// A server presenting the CA-signed certificate for 127.0.0.1 and offering `alpn`.
    /// With `requiringClientCertificate` it refuses a client without a certificate signed by
    /// the CA (host names are not checked: a client certificate names no host).
    static func serverTLS(requiringClientCertificate: Bool = false, alpn: [String] = []) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(path("server.pem"))
        let key = try NIOSSLPrivateKey(file: path("server-key.pem"), format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        if requiringClientCertificate {
            tls.certificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path("ca.pem")))
        }
        tls.applicationProtocols = alpn
        return tls
    }
}
