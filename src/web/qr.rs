//! QR codes drawn as inline SVG (the qrcode crate), for tickets.

use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};

use crate::error::{AppError, AppResult};

/// An `<svg>` element of `text`'s QR code at error-correction level M
/// (survives a crease or a cracked screen), with its quiet zone. Our own
/// markup only: `text` becomes modules, never markup.
pub fn svg(text: &str) -> AppResult<String> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
        .map_err(|err| AppError::Internal(anyhow::anyhow!("QR code for a ticket: {err}")))?;
    let drawn = code
        .render::<svg::Color<'_>>()
        .min_dimensions(220, 220)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .quiet_zone(true)
        .build();
    // Inline in HTML the XML declaration is noise; the element starts at <svg.
    let start = drawn.find("<svg").unwrap_or(0);
    Ok(drawn[start..].replacen("<svg", "<svg role=\"img\" aria-label=\"QR code\"", 1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_ticket_code_becomes_one_svg_element() {
        let drawn = super::svg("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567").unwrap();
        assert!(drawn.starts_with("<svg role=\"img\""));
        assert!(drawn.trim_end().ends_with("</svg>"));
        assert!(drawn.contains("<path") || drawn.contains("<rect"));
    }
}
