//! Text for the PDF tickets: the bundled fonts, their measurements, and
//! lines fitted to a width.
//!
//! Glyphs and advances come straight from the font's tables (skrifa) rather
//! than from a shaper, so the width measured to fit a line is exactly the
//! width drawn. That gives up kerning and ligatures, which a ticket's short
//! lines don't miss.

use std::sync::LazyLock;

use anyhow::anyhow;
use krilla::text::{Font, GlyphId, KrillaGlyph};
use skrifa::MetadataProvider;
use skrifa::charmap::Charmap;
use skrifa::instance::{LocationRef, Size};
use skrifa::metrics::GlyphMetrics;
use skrifa::raw::TableProvider;

const ELLIPSIS: &str = "…";

/// A font for krilla plus the tables we measure it with.
pub(super) struct Face {
    pub(super) font: Font,
    pub(super) charmap: Charmap<'static>,
    metrics: GlyphMetrics<'static>,
    units_per_em: f32,
}

static REGULAR: LazyLock<Option<Face>> =
    LazyLock::new(|| Face::load(include_bytes!("../fonts/DejaVuSans.ttf")));
static BOLD: LazyLock<Option<Face>> =
    LazyLock::new(|| Face::load(include_bytes!("../fonts/DejaVuSans-Bold.ttf")));

impl Face {
    fn load(bytes: &'static [u8]) -> Option<Face> {
        let font_ref = skrifa::FontRef::new(bytes).ok()?;
        let units_per_em = f32::from(font_ref.head().ok()?.units_per_em());
        Some(Face {
            font: Font::new(bytes.into(), 0)?,
            charmap: font_ref.charmap(),
            metrics: font_ref.glyph_metrics(Size::unscaled(), LocationRef::default()),
            units_per_em,
        })
    }

    /// Glyph and advance (in em) of one character; a character the font
    /// lacks shows as the font's "missing" box rather than vanishing.
    fn glyph(&self, character: char) -> (skrifa::GlyphId, f32) {
        let glyph = self
            .charmap
            .map(character)
            .unwrap_or(skrifa::GlyphId::NOTDEF);
        let advance = self.metrics.advance_width(glyph).unwrap_or(0.0) / self.units_per_em;
        (glyph, advance)
    }

    fn width_em(&self, text: &str) -> f32 {
        text.chars().map(|character| self.glyph(character).1).sum()
    }

    pub(super) fn width(&self, text: &str, size: f32) -> f32 {
        self.width_em(text) * size
    }

    pub(super) fn run(&self, text: &str) -> Vec<KrillaGlyph> {
        text.char_indices()
            .map(|(start, character)| {
                let (glyph, advance) = self.glyph(character);
                krilla_glyph(glyph, start..start + character.len_utf8(), advance, 0.0)
            })
            .collect()
    }

    /// A code spelled out for typing: letters spaced apart a little so
    /// that look-alikes stand apart, and a wide gap between groups.
    pub(super) fn spaced_run(
        &self,
        text: &str,
        tracking_em: f32,
        gap_em: f32,
    ) -> (Vec<KrillaGlyph>, f32) {
        let glyphs: Vec<KrillaGlyph> = text
            .char_indices()
            .map(|(start, character)| {
                let (glyph, advance) = self.glyph(character);
                let range = start..start + character.len_utf8();
                if character.is_whitespace() {
                    krilla_glyph(glyph, range, gap_em, 0.0)
                } else {
                    krilla_glyph(glyph, range, advance + tracking_em, tracking_em / 2.0)
                }
            })
            .collect();
        let width_em = glyphs.iter().map(|glyph| glyph.x_advance).sum();
        (glyphs, width_em)
    }
}

fn krilla_glyph(
    glyph: skrifa::GlyphId,
    text_range: std::ops::Range<usize>,
    x_advance: f32,
    x_offset: f32,
) -> KrillaGlyph {
    KrillaGlyph {
        glyph_id: GlyphId::new(glyph.to_u32()),
        text_range,
        x_advance,
        x_offset,
        y_offset: 0.0,
        y_advance: 0.0,
        location: None,
    }
}

pub(super) fn faces() -> anyhow::Result<(&'static Face, &'static Face)> {
    let regular = REGULAR
        .as_ref()
        .ok_or_else(|| anyhow!("the bundled DejaVu Sans font could not be read"))?;
    let bold = BOLD
        .as_ref()
        .ok_or_else(|| anyhow!("the bundled DejaVu Sans Bold font could not be read"))?;
    Ok((regular, bold))
}

/// Control characters (a stray newline in a venue name) would draw as
/// boxes; a space reads as intended.
pub(super) fn printable(text: &str) -> String {
    text.chars()
        .map(|character| {
            if character.is_control() {
                ' '
            } else {
                character
            }
        })
        .collect()
}

/// The largest size up to `max_size` at which `text` fits `width`; below
/// `min_size` the text is cut instead and ends in "…".
pub(super) fn fit(
    face: &Face,
    text: &str,
    max_size: f32,
    min_size: f32,
    width: f32,
) -> (String, f32) {
    let text = printable(text);
    let width_em = face.width_em(&text);
    if width_em <= 0.0 {
        return (text, max_size);
    }
    let size = (width / width_em).min(max_size);
    if size >= min_size {
        return (text, size);
    }
    let room_em = width / min_size - face.width_em(ELLIPSIS);
    let mut used_em = 0.0;
    let mut cut = 0;
    for (index, character) in text.char_indices() {
        used_em += face.glyph(character).1;
        if used_em > room_em {
            break;
        }
        cut = index + character.len_utf8();
    }
    let mut shortened = text[..cut].trim_end().to_owned();
    shortened.push_str(ELLIPSIS);
    (shortened, min_size)
}

/// Breaks `text` into lines no wider than `width` at `size`, at spaces;
/// a word longer than a line is cut to fit.
pub(super) fn wrap(face: &Face, text: &str, size: f32, width: f32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in printable(text).split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_owned()
        } else {
            format!("{line} {word}")
        };
        if face.width(&candidate, size) <= width || line.is_empty() {
            line = candidate;
        } else {
            lines.push(std::mem::take(&mut line));
            line = word.to_owned();
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
        .into_iter()
        .map(|line| fit(face, &line, size, size, width).0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accented_text_has_glyphs() {
        let (regular, bold) = faces().expect("bundled fonts load");
        for character in "äöüßéèêçñáíóú¿¡«»€ÄÖÜÉÇÑ·…".chars() {
            assert!(
                regular.charmap.map(character).is_some(),
                "regular lacks {character}"
            );
            assert!(
                bold.charmap.map(character).is_some(),
                "bold lacks {character}"
            );
        }
    }

    #[test]
    fn long_text_is_shrunk_then_cut() {
        let (_, bold) = faces().expect("bundled fonts load");
        let (short, size) = fit(bold, "Hamlet", 30.0, 14.0, 400.0);
        assert_eq!((short.as_str(), size), ("Hamlet", 30.0));
        let long = "Die Zauberflöte ".repeat(12);
        let (cut, size) = fit(bold, &long, 30.0, 14.0, 400.0);
        assert_eq!(size, 14.0);
        assert!(cut.ends_with('…'));
        assert!(bold.width(&cut, size) <= 400.0);
    }
}
