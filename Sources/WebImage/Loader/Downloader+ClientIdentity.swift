import Foundation
import NIOSSL

extension Downloader {
    /// A client certificate and its private key, presented to servers that ask for one
    /// (mutual TLS; SDWebImage's `urlCredential` with a client identity).
    ///
    /// Loaded and checked once when made: the key must be the certificate's, so a mismatch
    /// fails here, not on every download. Keys must be unencrypted PEM.
    ///
    /// ```swift
    /// var config = Downloader.Configuration()
    /// config.clientIdentity = try Downloader.ClientIdentity(certificateFile: "client.pem", keyFile: "client-key.pem")
    /// ```
    public struct ClientIdentity: Sendable, Hashable {
        /// The client certificate first, then any intermediates that lead to the server's CA.
        let certificateChain: [NIOSSLCertificate]
        let privateKey: NIOSSLPrivateKey

        /// Reads the certificate chain and the key from PEM files; they may be one file
        /// holding both (curl's `--cert` without `--key`).
        /// - Throws: ``WebImageError/invalidConfiguration(_:)`` naming the file that cannot
        ///   be read or parsed, or when the key does not belong to the certificate.
        public init(certificateFile: String, keyFile: String) throws(WebImageError) {
            let chain = try CertificateBundle(pemFile: certificateFile)
            let key: Data
            do {
                key = try Data(contentsOf: URL(fileURLWithPath: keyFile))
            } catch {
                throw .invalidConfiguration("cannot read the key file \(keyFile): \(CertificateBundle.reason(error))")
            }
            try self.init(chain: chain.certificates, keyPEM: key, source: keyFile)
        }

        /// Reads the certificate chain and the key from PEM text already in memory.
        /// - Throws: ``WebImageError/invalidConfiguration(_:)`` when either cannot be
        ///   parsed, or the key does not belong to the certificate.
        public init(certificatePEM: Data, keyPEM: Data) throws(WebImageError) {
            try self.init(chain: CertificateBundle(pem: certificatePEM).certificates, keyPEM: keyPEM, source: "the key PEM data")
        }

        private init(chain: [NIOSSLCertificate], keyPEM: Data, source: String) throws(WebImageError) {
            do {
                privateKey = try NIOSSLPrivateKey(bytes: Array(keyPEM), format: .pem)
            } catch {
                throw .invalidConfiguration("\(source) holds no readable unencrypted PEM private key")
            }
            certificateChain = chain
            // A TLS context refuses a key that does not match the leaf certificate: made
            // once here, it turns a wrong pair into an error now rather than a failed
            // handshake on every download.
            var tls = TLSConfiguration.makeClientConfiguration()
            apply(to: &tls)
            do {
                _ = try NIOSSLContext(configuration: tls)
            } catch {
                throw .invalidConfiguration("the private key in \(source) does not belong to the client certificate")
            }
        }

        /// Sets `tls` to present this identity.
        func apply(to tls: inout TLSConfiguration) {
            tls.certificateChain = certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(privateKey)
        }
    }
}
