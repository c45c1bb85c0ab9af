/// A chain of transformers written as one line of text: what the command line's
/// `--transform SPEC` reads.
///
/// Steps are separated by `;` and run left to right; each is `name=arguments`, arguments
/// separated by `,`, spaces around any part ignored, names and keywords in any case:
///
/// | step | arguments | transformer |
/// | --- | --- | --- |
/// | `resize=WxH[,MODE]` | MODE `fill` (default), `aspectFit` (or `fit`), `aspectFill` (or `cover`) | ``ResizeTransformer`` |
/// | `crop=X,Y,W,H` | pixels, origin top-left | ``CropTransformer`` |
/// | `flip=h` / `v` / `hv` | horizontal, vertical, both | ``FlipTransformer`` |
/// | `rotate=DEG[,fit\|keep]` | degrees counter-clockwise; `fit` (default) grows the canvas | ``RotateTransformer`` |
/// | `round=R[,corners=C][,border=W][,color=#RGBA]` | C: `all` or corners joined by `+` from `tl tr bl br` | ``RoundCornerTransformer`` |
/// | `tint=#COLOR[,MODE]` | MODE a ``TintTransformer/BlendMode`` name, default `sourceIn` | ``TintTransformer`` |
/// | `blur=SIGMA` | Gaussian standard deviation in pixels | ``BlurTransformer`` |
///
/// Colours are CSS-style `#rrggbb` or `#rrggbbaa` (the `#` optional); note that keys print
/// them SDWebImage's way, `#aarrggbb`. Resize sides are limited to 1–65535 pixels so a typo
/// cannot ask for terabytes. The parser lives in the library, not the tool, so that it is
/// tested like everything else and other front ends can accept the same text.
///
/// ```swift
/// let spec = try TransformSpec("resize=256x256,aspectFill;round=12;blur=4")
/// let thumb = try spec.transformer.transform(image)
/// ```
public struct TransformSpec: Sendable, CustomStringConvertible {
    /// Why a spec was refused: one line naming the step and what is wrong.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The explanation, fit for a command-line error.
        public let description: String
    }

    /// The text as given.
    public let text: String
    /// The steps, first applied first.
    public let transformers: [any ImageTransformer]

    /// Parses `text`; throws ``ParseError`` on the first step it cannot read.
    public init(_ text: String) throws {
        self.text = text
        let steps = text.split(separator: ";", omittingEmptySubsequences: false).map(Self.trimmed)
        guard !(steps.count == 1 && steps[0].isEmpty) else { throw ParseError(description: "empty transform spec") }
        transformers = try steps.map(Self.parseStep)
    }

    /// All steps as one transformer; its key identifies the whole chain.
    public var transformer: PipelineTransformer { PipelineTransformer(transformers) }

    /// The spec as it was written, so it can be printed back or logged as given.
    public var description: String { text }
}
