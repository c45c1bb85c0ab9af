import Foundation

/// The bytes a progressive decoder has been handed, and the one-shot decode that ends it.
///
/// Every progressive decoder keeps the same bookkeeping: the data so far (the caller's
/// `Data`, shared, not copied), whether it is final, and, once final, the image decoded
/// by the format's ordinary coder, kept for the options it was decoded with so repeated
/// asks cost nothing. A value type, owned by its decoder's lock.
struct ProgressiveInput {
    /// Every byte received so far.
    private(set) var data = Data()
    /// Whether the last update said no more bytes will come.
    private(set) var isFinal = false
    private var finalImage: (options: ImageCoderOptions, image: Image)?

    /// Records a new update. Returns `true` when the data does not extend what came
    /// before (it is shorter), so the decoder must start over.
    mutating func update(_ newData: Data, isFinal: Bool) -> Bool {
        let restarted = newData.count < data.count
        data = newData
        self.isFinal = isFinal
        finalImage = nil
        return restarted
    }

    /// The one-shot decode of all the bytes with `options`, made once per options.
    mutating func finalImage(options: ImageCoderOptions, decode: (Data, ImageCoderOptions) throws -> Image) throws -> Image {
        if let finalImage, finalImage.options == options { return finalImage.image }
        let image = try decode(data, options)
        finalImage = (options, image)
        return image
    }

    /// `image` again, marked as a partial image from data still arriving.
    static func markedIncremental(_ image: Image) -> Image {
        Image(
            frames: image.frames, format: image.format, scale: image.scale, loopCount: image.loopCount,
            orientation: image.orientation, hasAlpha: image.hasAlpha, isThumbnail: image.isThumbnail,
            isTransformed: image.isTransformed, isIncremental: true)
    }
}
