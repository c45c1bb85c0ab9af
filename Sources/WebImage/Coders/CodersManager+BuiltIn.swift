extension CodersManager {
    /// The built-in coders, in the order they are added (the last is asked first).
    public static var builtInCoders: [any ImageCoder] {
        []
    }
}
