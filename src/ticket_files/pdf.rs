//! Printable PDF tickets, one per page, drawn with krilla.
//!
//! Each page is a ticket card: a coloured band with the event, its date and
//! venue; the place in large type; the ticket's details; a QR code of at
//! least 60 mm that a door scanner reads off a crumpled print; the code
//! spelled out for typing; and a tear line with the door note. Everything a
//! scanner or a person at the door reads is black on white.

mod text;

use anyhow::{Context, anyhow};
use krilla::color::rgb;
use krilla::geom::{Path, PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule, LineCap, Stroke, StrokeDash};
use krilla::surface::Surface;
use krilla::{Document, SerializeSettings};
use qrcode::{Color as ModuleColor, EcLevel, QrCode};

use super::TicketFacts;
use text::{Face, faces, fit, printable, wrap};

/// Paper the tickets are laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    A4,
    Letter,
}

/// Countries whose printers are loaded with US Letter.
const LETTER_COUNTRIES: [&str; 16] = [
    "US", "CA", "MX", "PH", "CL", "CO", "VE", "GT", "CR", "PA", "DO", "SV", "PR", "NI", "HN", "BZ",
];

impl Paper {
    /// The paper a buyer in `country` (ISO 3166-1 alpha-2) most likely has;
    /// A4 when the country is unknown, as most of the world uses it.
    pub fn of_country(country: Option<&str>) -> Paper {
        match country {
            Some(code)
                if LETTER_COUNTRIES
                    .iter()
                    .any(|letter| letter.eq_ignore_ascii_case(code.trim())) =>
            {
                Paper::Letter
            }
            _ => Paper::A4,
        }
    }

    /// Width and height in PDF points (1/72 inch).
    pub fn size_points(self) -> (f32, f32) {
        match self {
            Paper::A4 => (595.28, 841.89),
            Paper::Letter => (612.0, 792.0),
        }
    }
}

const POINTS_PER_MM: f32 = 72.0 / 25.4;
/// Below this a phone held at arm's length over a crumpled print misreads.
const QR_SYMBOL_MIN_MM: f32 = 60.0;
const QR_QUIET_ZONE_MODULES: usize = 4;

const MARGIN: f32 = 36.0;
const PADDING: f32 = 22.0;
const CORNER_RADIUS: f32 = 12.0;
const BAND_HEIGHT: f32 = 112.0;

type Rgb = (u8, u8, u8);
const WHITE: Rgb = (255, 255, 255);
const BAND: Rgb = (30, 41, 82);
const BAND_SUBTEXT: Rgb = (208, 215, 236);
const INK: Rgb = (0, 0, 0);
const LABEL_GREY: Rgb = (105, 110, 122);
const RULE_GREY: Rgb = (200, 203, 210);

/// Tickets as a PDF, one per page, for printing.
pub fn tickets_pdf(tickets: &[TicketFacts], paper: Paper, title: &str) -> anyhow::Result<Vec<u8>> {
    let Some(first) = tickets.first() else {
        anyhow::bail!("a ticket PDF needs at least one ticket");
    };
    let (regular, bold) = faces()?;
    let (page_width, page_height) = paper.size_points();

    let mut document = Document::new_with(SerializeSettings::default());
    document.set_metadata(
        Metadata::new()
            .title(printable(title))
            .language(first.labels.language.clone())
            .creator("seatmap".to_owned()),
    );
    for ticket in tickets {
        let settings = PageSettings::from_wh(page_width, page_height)
            .ok_or_else(|| anyhow!("paper size {page_width}×{page_height} is not a page"))?;
        let mut page = document.start_page_with(settings);
        let mut surface = page.surface();
        let mut pen = Pen {
            surface: &mut surface,
        };
        draw_ticket(&mut pen, (regular, bold), ticket, page_width)
            .with_context(|| format!("drawing ticket {}", ticket.serial))?;
        surface.finish();
        page.finish();
    }
    document
        .finish()
        .map_err(|error| anyhow!("writing the ticket PDF: {error}"))
}

/// How a line of text is set: its face and colour, the size it starts at,
/// and the size it may shrink to (to fit its width) before it is cut.
#[derive(Clone, Copy)]
struct Style {
    face: &'static Face,
    size: f32,
    min_size: f32,
    colour: Rgb,
}

impl Style {
    fn new(face: &'static Face, size: f32, min_size: f32, colour: Rgb) -> Style {
        Style {
            face,
            size,
            min_size,
            colour,
        }
    }
}

struct Pen<'s, 'p> {
    surface: &'s mut Surface<'p>,
}

impl Pen<'_, '_> {
    fn fill(&mut self, colour: Rgb) {
        self.surface.set_stroke(None);
        self.surface.set_fill(Some(Fill {
            paint: rgb::Color::new(colour.0, colour.1, colour.2).into(),
            opacity: NormalizedF32::ONE,
            rule: FillRule::NonZero,
        }));
    }

    /// Text at the style's size with its left end at `x`.
    fn text(&mut self, style: Style, text: &str, x: f32, baseline: f32) {
        self.fill(style.colour);
        self.surface.draw_glyphs(
            Point::from_xy(x, baseline),
            &style.face.run(text),
            style.face.font.clone(),
            text,
            style.size,
            false,
        );
    }

    fn centred_text(&mut self, style: Style, text: &str, centre: f32, baseline: f32) {
        let left = centre - style.face.width(text, style.size) / 2.0;
        self.text(style, text, left, baseline);
    }

    /// Text shrunk to fit `width`, and cut with "…" if it still doesn't.
    fn fitted_text(&mut self, style: Style, text: &str, width: f32, x: f32, baseline: f32) {
        let (fitted, size) = fit(style.face, text, style.size, style.min_size, width);
        self.text(Style { size, ..style }, &fitted, x, baseline);
    }

    fn path(&mut self, path: &Path, colour: Rgb) {
        self.fill(colour);
        self.surface.draw_path(path);
    }

    fn line(&mut self, from: (f32, f32), to: (f32, f32), colour: Rgb, dashed: bool) {
        let mut builder = PathBuilder::new();
        builder.move_to(from.0, from.1);
        builder.line_to(to.0, to.1);
        let Some(path) = builder.finish() else { return };
        self.surface.set_fill(None);
        self.surface.set_stroke(Some(Stroke {
            paint: rgb::Color::new(colour.0, colour.1, colour.2).into(),
            width: 0.75,
            line_cap: LineCap::Butt,
            dash: dashed.then(|| StrokeDash {
                array: vec![4.0, 3.0],
                offset: 0.0,
            }),
            ..Stroke::default()
        }));
        self.surface.draw_path(&path);
        self.surface.set_stroke(None);
    }
}

// Cubic Bézier control distance that best approximates a quarter circle.
const KAPPA: f32 = 0.552_284_8;

/// A rectangle with rounded top corners, and rounded bottom corners too
/// unless `square_bottom` (the band that sits on the card's top edge).
fn rounded_rect(edges: (f32, f32, f32, f32), radius: f32, square_bottom: bool) -> Option<Path> {
    let (left, top, right, bottom) = edges;
    let r = radius.min((right - left) / 2.0).min((bottom - top) / 2.0);
    let c = r * (1.0 - KAPPA);
    let mut builder = PathBuilder::new();
    builder.move_to(left + r, top);
    builder.line_to(right - r, top);
    builder.cubic_to(right - c, top, right, top + c, right, top + r);
    if square_bottom {
        builder.line_to(right, bottom);
        builder.line_to(left, bottom);
    } else {
        builder.line_to(right, bottom - r);
        builder.cubic_to(right, bottom - c, right - c, bottom, right - r, bottom);
        builder.line_to(left + r, bottom);
        builder.cubic_to(left + c, bottom, left, bottom - c, left, bottom - r);
    }
    builder.line_to(left, top + r);
    builder.cubic_to(left, top + c, left + c, top, left + r, top);
    builder.close();
    builder.finish()
}

/// Points per module so that the symbol (quiet zone aside) is at least
/// 60 mm; whole points keep module edges on one grid at any zoom.
fn qr_module_points(symbol_modules: usize) -> f32 {
    (QR_SYMBOL_MIN_MM * POINTS_PER_MM / symbol_modules.max(1) as f32).ceil()
}

fn draw_ticket(
    pen: &mut Pen<'_, '_>,
    (regular, bold): (&'static Face, &'static Face),
    ticket: &TicketFacts,
    page_width: f32,
) -> anyhow::Result<()> {
    let card_left = MARGIN;
    let card_right = page_width - MARGIN;
    let inner_left = card_left + PADDING;
    let inner_width = card_right - card_left - 2.0 * PADDING;
    let centre = page_width / 2.0;

    let qr = QrCode::with_error_correction_level(ticket.code.as_bytes(), EcLevel::M)
        .map_err(|error| anyhow!("the ticket code does not fit a QR code: {error}"))?;
    let module = qr_module_points(qr.width());
    let qr_size = module * (qr.width() + 2 * QR_QUIET_ZONE_MODULES) as f32;

    // Top to bottom; each value is a y coordinate (krilla's y grows down).
    let band_top = MARGIN;
    let band_bottom = band_top + BAND_HEIGHT;
    let place_label = band_bottom + 26.0;
    let place_value = place_label + 32.0;
    let first_rule = place_value + 16.0;
    let details_top = first_rule + 22.0;
    let details_row = 42.0;
    let second_rule = details_top + 2.0 * details_row + 2.0;
    let qr_top = second_rule + 6.0;
    let code_baseline = qr_top + qr_size + 10.0;
    let card_bottom = code_baseline + 22.0;
    let tear = card_bottom + 20.0;
    let note_top = tear + 24.0;

    let no_area = || anyhow!("the ticket card has no area");
    let card = rounded_rect(
        (card_left, band_top, card_right, card_bottom),
        CORNER_RADIUS,
        false,
    );
    pen.path(&card.ok_or_else(no_area)?, RULE_GREY);
    let inset = 0.75;
    let card_inside = rounded_rect(
        (
            card_left + inset,
            band_top + inset,
            card_right - inset,
            card_bottom - inset,
        ),
        CORNER_RADIUS - inset,
        false,
    );
    pen.path(&card_inside.ok_or_else(no_area)?, WHITE);
    let band = rounded_rect(
        (card_left, band_top, card_right, band_bottom),
        CORNER_RADIUS,
        true,
    );
    pen.path(&band.ok_or_else(no_area)?, BAND);

    let title = Style::new(bold, 30.0, 14.0, WHITE);
    let band_line = Style::new(regular, 14.0, 9.0, BAND_SUBTEXT);
    pen.fitted_text(
        title,
        &ticket.event_name,
        inner_width,
        inner_left,
        band_top + 46.0,
    );
    pen.fitted_text(
        band_line,
        &ticket.starts_text,
        inner_width,
        inner_left,
        band_top + 74.0,
    );
    pen.fitted_text(
        band_line,
        &ticket.venue,
        inner_width,
        inner_left,
        band_top + 95.0,
    );

    let place_styles = (
        Style::new(regular, 10.0, 7.0, LABEL_GREY),
        Style::new(bold, 30.0, 12.0, INK),
    );
    let columns = (inner_left, inner_width);
    draw_place(
        pen,
        place_styles,
        ticket,
        columns,
        (place_label, place_value),
    );
    let rule_end = inner_left + inner_width;
    pen.line(
        (inner_left, first_rule),
        (rule_end, first_rule),
        RULE_GREY,
        false,
    );

    let label = Style::new(regular, 9.0, 7.0, LABEL_GREY);
    let value = Style::new(bold, 15.0, 9.0, INK);
    let column_width = (inner_width - PADDING) / 2.0;
    let details = [
        [
            (&ticket.labels.ticket_type, &ticket.kind),
            (&ticket.labels.price, &ticket.price),
        ],
        [
            (&ticket.labels.holder, &ticket.holder_name),
            (&ticket.labels.order, &ticket.order_ref),
        ],
    ];
    for (row_index, row) in details.iter().enumerate() {
        let label_baseline = details_top + row_index as f32 * details_row;
        for (column_index, (label_text, value_text)) in row.iter().enumerate() {
            let x = inner_left + column_index as f32 * (column_width + PADDING);
            pen.fitted_text(label, label_text, column_width, x, label_baseline);
            pen.fitted_text(value, value_text, column_width, x, label_baseline + 19.0);
        }
    }
    pen.line(
        (inner_left, second_rule),
        (rule_end, second_rule),
        RULE_GREY,
        false,
    );

    pen.path(&qr_path(&qr, centre - qr_size / 2.0, qr_top, module)?, INK);

    let code_text = printable(&ticket.code_grouped);
    let (code_glyphs, code_width_em) = bold.spaced_run(&code_text, 0.08, 0.6);
    let code_size = (inner_width / code_width_em.max(0.01)).clamp(9.0, 18.0);
    pen.fill(INK);
    pen.surface.draw_glyphs(
        Point::from_xy(centre - code_width_em * code_size / 2.0, code_baseline),
        &code_glyphs,
        bold.font.clone(),
        &code_text,
        code_size,
        false,
    );

    pen.line((card_left, tear), (card_right, tear), LABEL_GREY, true);
    let scissors = "\u{2702}";
    if regular.charmap.map('\u{2702}').is_some() {
        let style = Style::new(regular, 12.0, 12.0, LABEL_GREY);
        let scissors_width = regular.width(scissors, style.size);
        // A white gap in the dashes, so the scissors sit on the line.
        let gap = rounded_rect(
            (
                card_left + 8.0,
                tear - 7.0,
                card_left + 14.0 + scissors_width,
                tear + 7.0,
            ),
            0.0,
            false,
        );
        if let Some(gap) = gap {
            pen.path(&gap, WHITE);
        }
        pen.text(style, scissors, card_left + 11.0, tear + 4.0);
    }
    let note = Style::new(regular, 11.0, 11.0, LABEL_GREY);
    let note_lines = wrap(regular, &ticket.labels.door_note, note.size, inner_width);
    for (index, line) in note_lines.iter().enumerate() {
        pen.centred_text(note, line, centre, note_top + index as f32 * 15.0);
    }
    Ok(())
}

/// Section / Row / Seat side by side in equal columns, or one wide Area.
fn draw_place(
    pen: &mut Pen<'_, '_>,
    (label, value): (Style, Style),
    ticket: &TicketFacts,
    (left, width): (f32, f32),
    (label_baseline, value_baseline): (f32, f32),
) {
    let count = ticket.place.len();
    if count == 0 {
        return;
    }
    let gap = 14.0;
    let column_width = (width - gap * (count as f32 - 1.0)) / count as f32;
    for (index, (label_text, value_text)) in ticket.place.iter().enumerate() {
        let x = left + index as f32 * (column_width + gap);
        pen.fitted_text(label, label_text, column_width, x, label_baseline);
        pen.fitted_text(value, value_text, column_width, x, value_baseline);
    }
}

/// The symbol as one path: each horizontal run of dark modules is a single
/// rectangle, which keeps the content stream small.
fn qr_path(qr: &QrCode, left: f32, top: f32, module: f32) -> anyhow::Result<Path> {
    let width = qr.width();
    let colours = qr.to_colors();
    let origin_x = left + (QR_QUIET_ZONE_MODULES as f32) * module;
    let origin_y = top + (QR_QUIET_ZONE_MODULES as f32) * module;
    let mut builder = PathBuilder::new();
    for (row_index, row) in colours.chunks(width.max(1)).enumerate() {
        let mut column = 0;
        while column < row.len() {
            if row[column] != ModuleColor::Dark {
                column += 1;
                continue;
            }
            let run_start = column;
            while column < row.len() && row[column] == ModuleColor::Dark {
                column += 1;
            }
            let rect = Rect::from_xywh(
                origin_x + run_start as f32 * module,
                origin_y + row_index as f32 * module,
                (column - run_start) as f32 * module,
                module,
            )
            .ok_or_else(|| anyhow!("a QR module has no area"))?;
            builder.push_rect(rect);
        }
    }
    builder
        .finish()
        .ok_or_else(|| anyhow!("the QR code has no dark modules"))
}

#[cfg(test)]
mod tests {
    use super::super::test_facts;
    use super::*;

    #[test]
    fn paper_follows_the_country() {
        assert_eq!(Paper::of_country(Some("US")), Paper::Letter);
        assert_eq!(Paper::of_country(Some("ca")), Paper::Letter);
        assert_eq!(Paper::of_country(Some("DE")), Paper::A4);
        assert_eq!(Paper::of_country(None), Paper::A4);
        assert_eq!(Paper::A4.size_points(), (595.28, 841.89));
        assert_eq!(Paper::Letter.size_points(), (612.0, 792.0));
    }

    #[test]
    fn no_tickets_is_an_error() {
        assert!(tickets_pdf(&[], Paper::A4, "Tickets").is_err());
    }

    #[test]
    fn pdf_has_a_page_per_ticket_and_metadata() {
        let tickets = [test_facts::seated(), test_facts::standing()];
        let pdf = tickets_pdf(&tickets, Paper::Letter, "Tickets für «Noël»").expect("pdf");
        assert!(pdf.starts_with(b"%PDF-"));
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("/Count 2"), "two pages");
        assert!(text.contains("/Lang"));
        assert!(text.contains("/Title"));
    }

    #[test]
    fn qr_symbol_is_at_least_sixty_millimetres() {
        let ticket = test_facts::seated();
        let qr = QrCode::with_error_correction_level(ticket.code.as_bytes(), EcLevel::M)
            .expect("code fits");
        assert_eq!(qr.error_correction_level(), EcLevel::M);
        let symbol = qr_module_points(qr.width()) * qr.width() as f32;
        assert!(symbol >= 60.0 * POINTS_PER_MM, "{symbol} pt");
    }
}
