import Foundation
@testable import WebImage

extension ImageCoder {
    /// The ``WebImageError`` decoding `data` throws, or nil when it decodes (or throws
    /// something else), for tests that assert on the kind of failure.
    func decodeError(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) -> WebImageError? {
        do {
            _ = try decode(data, options: options)
            return nil
        } catch {
            return error as? WebImageError
        }
    }
}
