import Crypto
import Foundation
import WebImage

extension ImageServer.Configuration {
    /// The prefix of the source cache's disk keys: a digest of every setting that decides
    /// whether a source may be fetched and how much of it.
    ///
    /// A disk entry outlives the server that stored it. Keyed by URL alone, a node
    /// restarted with a narrower allow-list, with private addresses closed again, or with a
    /// smaller size limit would still answer from what the old policy fetched: a policy
    /// change would reach only sources not yet cached. Under its own namespace the new
    /// policy finds none of the old entries, and the cache's age and size limits remove
    /// them. Nodes with the same settings share one namespace, so a shared folder still
    /// serves them all.
    public var sourceCacheNamespace: String {
        Self.namespace(Self.layoutDescription + "\n" + sourcePolicyDescription)
    }

    /// What every disk entry depends on besides the settings: the layout of its extended
    /// data (``ByteCache``'s), and for a result the build that made it: this package's
    /// version, ``ImageProcessor/outputRevision`` (the version moves seldom, fixes to the
    /// output often) and each codec library's (librsvg and poppler are not asked: that
    /// would load them). A rolling upgrade that changes how results are
    /// made (a resize fix, a new libwebp) would otherwise serve, from a shared folder,
    /// results of the old build for as long as they last, and the old nodes the new ones'.
    private static var layoutDescription: String { "layout=\(ByteCache.StoredDescription.layoutVersion)" }
    static var buildDescription: String {
        "build=\(WebImageVersion.current) revision=\(ImageProcessor.outputRevision) "
            + LinkedLibrary.all.map(\.description).joined(separator: ", ")
    }

    /// The prefix of the result cache's disk keys: the source policy's settings (a result
    /// is made from a source) and every setting that changes a result's bytes for the same
    /// URL (default qualities, preferred formats, the size, frame and dimension limits, SVG
    /// and PDF rendering). A server restarted with a new default quality makes its results
    /// again instead of serving the old ones for as long as they last.
    public var resultCacheNamespace: String {
        resultCacheNamespace(build: Self.buildDescription)
    }

    /// ``resultCacheNamespace`` for results made by `build` (tests give another).
    func resultCacheNamespace(build: String) -> String {
        let qualities = formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.rawValue)=\($0.value)" }
        let result = [
            "svg=\(allowsSVG)",
            "pdf=\(allowsPDF)",
            "resolution=\(maxSourceResolution)",
            "frames=\(maxAnimationFrames)",
            "dimension=\(maxResultDimension)",
            "quality=\(quality)",
            "qualities=\(qualities.joined(separator: ","))",
            // In order: the first one that fits is chosen.
            "preferred=\(preferredFormats.map(\.rawValue).joined(separator: ","))",
        ]
        return Self.namespace(([Self.layoutDescription, build, sourcePolicyDescription] + result).joined(separator: "\n"))
    }

    /// The source policy as one line per setting: each value spelled out, in a fixed
    /// order, so the same settings give the same text in every process.
    private var sourcePolicyDescription: String {
        let addresses = sourceAddresses
        return [
            // Sorted: the same list in another order is the same policy.
            "sources=\(allowedSources.map(\.description).sorted().joined(separator: " "))",
            "loopback=\(addresses.allowsLoopback)",
            "link-local=\(addresses.allowsLinkLocal)",
            "private=\(addresses.allowsPrivate)",
            "networks=\(addresses.allowedNetworks.map(\.description).sorted().joined(separator: " "))",
            "local-root=\(localFilesystemRoot ?? "")",
            "data=\(allowsDataSources)",
            "file-size=\(maxSourceFileSize)",
            "redirects=\(maxRedirects)",
        ].joined(separator: "\n")
    }

    /// The first 8 bytes of the text's SHA-256 in hex, and a separator: short enough to cost
    /// nothing in a key, long enough that two policies never meet.
    private static func namespace(_ text: String) -> String {
        String(hex: SHA256.hash(data: Data(text.utf8)).prefix(8)) + ":"
    }
}
