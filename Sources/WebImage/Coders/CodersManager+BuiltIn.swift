extension CodersManager {
    /// The built-in coders, in the order they are added (the last is asked first).
    /// Every one checks magic bytes, so the order only matters for user coders added later.
    public static var builtInCoders: [any ImageCoder] {
        [BMPCoder(), TIFFCoder(), HEIFCoder(), AVIFCoder(), GIFCoder(), WebPCoder(), PNGCoder(), JPEGCoder()]
    }
}
