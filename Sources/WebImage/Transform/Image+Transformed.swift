extension Image {
    /// A new image with `frames` and everything else known about this one, marked as
    /// transformed. Alpha is re-checked only when the source had none: a transformer can
    /// add transparency (padding, corners) but never prove that the source's is gone.
    func transformed(into frames: [ImageFrame]) -> Image {
        let alpha = hasAlpha || frames.contains { $0.pixels.containsTransparency }
        return Image(
            frames: frames, format: format, scale: scale, loopCount: loopCount,
            orientation: orientation, hasAlpha: alpha, isThumbnail: isThumbnail,
            isTransformed: true, isIncremental: isIncremental
        )
    }
}
