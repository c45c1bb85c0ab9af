extension TransformSpec {
    static func trimmed(_ part: Substring) -> String {
        String(part.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    static func parseStep(_ step: String) throws -> any ImageTransformer {
        guard let equals = step.firstIndex(of: "=") else {
            throw ParseError(description: "transform step '\(step)' needs the form name=arguments")
        }
        let name = trimmed(step[..<equals]).lowercased()
        let arguments = step[step.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
        let reader = Arguments(step: step, values: arguments)
        switch name {
        case "resize": return try reader.resize()
        case "crop": return try reader.crop()
        case "flip": return try reader.flip()
        case "rotate": return try reader.rotate()
        case "round": return try reader.round()
        case "tint": return try reader.tint()
        case "blur": return try reader.blur()
        default:
            throw ParseError(description: "unknown transform '\(name)' (use resize, crop, flip, rotate, round, tint or blur)")
        }
    }

    /// The arguments of one step, read into a transformer.
    struct Arguments {
        let step: String
        let values: [String]

        func fail(_ reason: String) -> ParseError { ParseError(description: "transform step '\(step)': \(reason)") }

        func count(_ allowed: ClosedRange<Int>) throws {
            guard allowed.contains(values.count), !values.contains(where: \.isEmpty) else {
                throw fail(allowed.count == 1 ? "expected \(allowed.lowerBound) argument(s)" : "expected \(allowed.lowerBound) to \(allowed.upperBound) arguments")
            }
        }

        func integer(_ text: String, _ what: String) throws -> Int {
            guard let value = Int(text) else { throw fail("\(what) '\(text)' is not a whole number") }
            return value
        }

        func number(_ text: String, _ what: String, minimum: Double = -.infinity) throws -> Double {
            guard let value = Double(text), value.isFinite, value >= minimum else {
                throw fail("\(what) '\(text)' is not a finite number\(minimum > -.infinity ? " ≥ \(Int(minimum))" : "")")
            }
            return value
        }

        func resize() throws -> ResizeTransformer {
            try count(1...2)
            let sides = values[0].lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard sides.count == 2, let w = Int(sides[0]), let h = Int(sides[1]), (1...65535).contains(w), (1...65535).contains(h) else {
                throw fail("size '\(values[0])' must be WxH with sides 1 to 65535")
            }
            let mode: ResizeTransformer.Mode
            switch values.count == 2 ? values[1].lowercased() : "fill" {
            case "fill": mode = .fill
            case "aspectfit", "fit": mode = .aspectFit
            case "aspectfill", "cover": mode = .aspectFill
            default: throw fail("mode '\(values[1])' is not fill, aspectFit or aspectFill")
            }
            return ResizeTransformer(size: ImageSize(width: w, height: h), mode: mode)
        }

        func crop() throws -> CropTransformer {
            try count(4...4)
            let x = try integer(values[0], "x"), y = try integer(values[1], "y")
            let w = try integer(values[2], "width"), h = try integer(values[3], "height")
            guard w > 0, h > 0 else { throw fail("width and height must be positive") }
            return CropTransformer(rect: PixelRect(x: x, y: y, width: w, height: h))
        }

        func flip() throws -> FlipTransformer {
            try count(1...1)
            switch values[0].lowercased() {
            case "h": return FlipTransformer(horizontal: true)
            case "v": return FlipTransformer(vertical: true)
            case "hv", "vh": return FlipTransformer(horizontal: true, vertical: true)
            default: throw fail("direction '\(values[0])' is not h, v or hv")
            }
        }

        func rotate() throws -> RotateTransformer {
            try count(1...2)
            let degrees = try number(values[0], "angle")
            switch values.count == 2 ? values[1].lowercased() : "fit" {
            case "fit": return RotateTransformer(degrees: degrees, fitSize: true)
            case "keep": return RotateTransformer(degrees: degrees, fitSize: false)
            default: throw fail("'\(values[1])' is not fit or keep")
            }
        }

        func round() throws -> RoundCornerTransformer {
            try count(1...4)
            let radius = try number(values[0], "radius", minimum: 0)
            var corners = RectCorner.allCorners, border = 0.0
            var color: RGBAColor?
            for option in values.dropFirst() {
                let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw fail("option '\(option)' needs the form name=value") }
                switch parts[0].lowercased() {
                case "corners": corners = try self.corners(parts[1])
                case "border": border = try number(parts[1], "border width", minimum: 0)
                case "color", "colour": color = try self.color(parts[1])
                default: throw fail("unknown option '\(parts[0])' (use corners, border or color)")
                }
            }
            return RoundCornerTransformer(radius: radius, corners: corners, borderWidth: border, borderColor: color)
        }

        func tint() throws -> TintTransformer {
            try count(1...2)
            let color = try self.color(values[0])
            guard values.count == 2 else { return TintTransformer(color: color) }
            guard let mode = TintTransformer.BlendMode.allCases.first(where: { "\($0)".lowercased() == values[1].lowercased() }) else {
                let names = TintTransformer.BlendMode.allCases.map { "\($0)" }.joined(separator: ", ")
                throw fail("blend mode '\(values[1])' is not one of \(names)")
            }
            return TintTransformer(color: color, blendMode: mode)
        }

        func blur() throws -> BlurTransformer {
            try count(1...1)
            return BlurTransformer(radius: try number(values[0], "radius", minimum: 0))
        }

        func corners(_ text: String) throws -> RectCorner {
            if text.lowercased() == "all" { return .allCorners }
            var corners: RectCorner = []
            for name in text.lowercased().split(separator: "+", omittingEmptySubsequences: false) {
                switch name {
                case "tl": corners.insert(.topLeft)
                case "tr": corners.insert(.topRight)
                case "bl": corners.insert(.bottomLeft)
                case "br": corners.insert(.bottomRight)
                default: throw fail("corner '\(name)' is not tl, tr, bl or br")
                }
            }
            return corners
        }

        /// `#rrggbb` or `#rrggbbaa`.
        func color(_ text: String) throws -> RGBAColor {
            let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
            guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else {
                throw fail("colour '\(text)' is not #rrggbb or #rrggbbaa")
            }
            let rgba = hex.count == 6 ? value << 8 | 0xFF : value
            return RGBAColor(
                red: UInt8(truncatingIfNeeded: rgba >> 24), green: UInt8(truncatingIfNeeded: rgba >> 16),
                blue: UInt8(truncatingIfNeeded: rgba >> 8), alpha: UInt8(truncatingIfNeeded: rgba)
            )
        }
    }
}
