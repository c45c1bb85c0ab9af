import Foundation
import NIOSSL

extension Downloader {
    /// The certificate authorities a server's certificate must chain to for an `https:`
    /// download to proceed.
    ///
    /// ```swift
    /// var config = Downloader.Configuration()
    /// config.trustRoots = .only(try Downloader.CertificateBundle(pemFile: "/etc/ssl/internal-ca.pem"))
    /// ```
    public enum TrustRoots: Sendable, Hashable {
        /// The system's certificate authorities (the default).
        case system
        /// Only the bundle's certificates, in place of the system's (curl's `--cacert`): a
        /// server with a publicly trusted certificate then fails unless its CA is in the bundle.
        case only(CertificateBundle)
        /// The system's authorities and the bundle's (a private CA beside the public ones).
        case systemAnd(CertificateBundle)

        /// Sets `tls`'s trust roots to these.
        func apply(to tls: inout TLSConfiguration) {
            switch self {
            case .system:
                break
            case .only(let bundle):
                tls.trustRoots = .certificates(bundle.certificates)
            case .systemAnd(let bundle):
                tls.additionalTrustRoots = [.certificates(bundle.certificates)]
            }
        }
    }

    /// One or more X.509 certificates read from PEM: the certificate authorities of
    /// ``TrustRoots``, loaded (and checked) once when the bundle is made.
    ///
    /// ```swift
    /// let bundle = try Downloader.CertificateBundle(pemFile: "ca.pem")
    /// ```
    public struct CertificateBundle: Sendable, Hashable {
        /// The certificates, in file order.
        let certificates: [NIOSSLCertificate]

        /// Reads every certificate of a PEM file (other PEM blocks, such as a key, are skipped).
        /// - Throws: ``WebImageError/invalidConfiguration(_:)`` naming the file when it cannot
        ///   be read or holds no certificate.
        public init(pemFile path: String) throws(WebImageError) {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw .invalidConfiguration("cannot read the certificate file \(path): \(Self.reason(error))")
            }
            try self.init(pem: data, source: path)
        }

        /// Reads every certificate of PEM text already in memory.
        /// - Throws: ``WebImageError/invalidConfiguration(_:)`` when it holds no certificate.
        public init(pem: Data) throws(WebImageError) {
            try self.init(pem: pem, source: "the PEM data")
        }

        private init(pem: Data, source: String) throws(WebImageError) {
            do {
                certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem))
            } catch {
                throw .invalidConfiguration("\(source) holds no readable PEM certificate")
            }
            guard !certificates.isEmpty else { throw .invalidConfiguration("\(source) holds no readable PEM certificate") }
        }

        /// How many certificates the bundle holds.
        public var count: Int { certificates.count }

        /// A file error's reason without Foundation's long description.
        static func reason(_ error: any Error) -> String {
            if let error = error as? CocoaError, error.code == .fileReadNoSuchFile { return "no such file" }
            if let error = error as? CocoaError, error.code == .fileReadNoPermission { return "permission denied" }
            return (error as NSError).localizedDescription
        }
    }
}
