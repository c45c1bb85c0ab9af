import Foundation

extension ImageCache {
    /// Stores `image` in memory and bytes on disk, in the levels `cacheType` selects
    /// (SDWebImage's `storeImage:imageData:forKey:cacheType:completion:`).
    ///
    /// The disk bytes are, in order of preference: what `context.cacheSerializer` returns
    /// (`nil` stores nothing on disk), `data` unchanged, the file of an ``Image/animatedImage``
    /// decoded on demand at full size, or `image` encoded by ``storageFormat(for:coder:)``
    /// (every frame of an animation, on-demand ones included). Encoding and writing run on the cache's I/O queue;
    /// the call returns when the entry is on disk. With a thumbnail size in
    /// `context.coderOptions`, the image goes to memory under the thumbnail key (where a
    /// thumbnail query looks) while the bytes go to disk under `key`.
    ///
    /// Throws the encoder's or the file system's error.
    public func store(
        _ image: Image?,
        data: Data?,
        forKey key: String,
        cacheType: ImageCacheType = .all,
        extendedData: Data? = nil,
        context: ImageCacheContext = ImageCacheContext()
    ) async throws {
        if cacheType.includesMemory, let image {
            storeImageToMemory(image, forKey: context.memoryKey(for: key))
        }
        guard cacheType.includesDisk, image != nil || data != nil else { return }
        let disk = diskCache
        let coder = context.coder ?? coder
        // An animation decoded on demand carries its file: the disk gets those bytes, not a
        // re-encoding (unless it was decoded as a thumbnail, whose key must hold the smaller
        // image; then every frame is decoded and encoded).
        let animation = image?.animatedImage
        let data = data ?? (animation?.properties.isThumbnail == false ? animation?.animatedImageData : nil)
        try await BlockingIO.run {
            let bytes: Data?
            if let serializer = context.cacheSerializer, let image {
                bytes = serializer.cacheData(for: image, originalData: data, key: key)
            } else if let data {
                bytes = data
            } else if let image {
                let whole = try animation?.image() ?? image
                bytes = try coder.encode(whole, as: Self.storageFormat(for: whole, coder: coder), options: context.coderOptions)
            } else {
                bytes = nil
            }
            guard let bytes else { return }
            try disk.setData(bytes, forKey: key, extendedData: extendedData)
        }
    }

    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, context: ImageCacheContext) async throws {
        try await store(image, data: data, forKey: key, cacheType: cacheType, extendedData: nil, context: context)
    }

    /// The format an image without bytes is encoded in for the disk: its own format when
    /// `coder` can encode it; for an animation GIF, else WebP, else PNG (APNG); for a still
    /// image PNG when it has alpha, JPEG otherwise (SDWebImage's choice). A still with alpha
    /// whose own format has none (a JPEG given round corners or padding by a transformer)
    /// is PNG too: written as JPEG, it came back from disk flattened onto white.
    public static func storageFormat(for image: Image, coder: any ImageCoder) -> ImageFormat {
        if image.isAnimated {
            let animatable: [ImageFormat] = [.gif, .webp, .png]
            if animatable.contains(image.format), coder.canEncode(to: image.format) { return image.format }
            return animatable.first { coder.canEncode(to: $0) } ?? .gif
        }
        let holdsAlpha = !image.hasAlpha || image.format != .jpeg
        if image.format != .undefined, holdsAlpha, coder.canEncode(to: image.format) { return image.format }
        return image.hasAlpha ? .png : .jpeg
    }
}
