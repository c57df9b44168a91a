//! A small grid diagram and its SVG text (no dependencies): panels of cells in rows, each cell
//! filled with one colour band per access, with `data-*` attributes that tests and tools read
//! back. The family-specific builders (`explain_tik.rs`, `explain_pto.rs`) fill the model from
//! the simulator's own decoded instructions; this module only draws.

use std::fmt::Write as _;

/// Colours of repeats 0..7 (repeat r uses `REPEAT_COLOURS[r % 8]`).
pub const REPEAT_COLOURS: [&str; 8] = [
    "#8ecae6", "#ffb703", "#90be6d", "#f4978e", "#b8a1d9", "#f9e07f", "#76c7c0", "#e5989b",
];
/// Fill of a cell outside a tile's valid region (or outside the drawn operand).
pub const OUTSIDE: &str = "#e4e4e4";

/// One cell.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    /// Short text drawn in the cell.
    pub text: String,
    /// One horizontal band per fill, top to bottom (empty: white).
    pub fills: Vec<&'static str>,
    /// Greyed text (outside a valid region, not touched).
    pub dim: bool,
    /// Tooltip.
    pub tip: String,
    /// `data-*` attributes (name without the prefix, value).
    pub data: Vec<(&'static str, String)>,
}

/// One row of a panel.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// Left of the row.
    pub label: String,
    /// Right of the row.
    pub note: String,
    /// The cells.
    pub cells: Vec<Cell>,
}

/// A rectangle drawn over a panel's cells: rows `r0..r1`, columns `c0..c1`.
#[derive(Clone, Debug)]
pub struct Outline {
    pub r0: usize,
    pub c0: usize,
    pub r1: usize,
    pub c1: usize,
    pub label: String,
}

/// One operand's grid.
#[derive(Clone, Debug, Default)]
pub struct Panel {
    /// Bold heading.
    pub title: String,
    /// Lines under the heading.
    pub caption: Vec<String>,
    /// Column headings (optional).
    pub col_labels: Vec<String>,
    /// The rows.
    pub rows: Vec<Row>,
    /// Outlines (valid regions).
    pub outlines: Vec<Outline>,
    /// A line under the grid (rows not drawn, ...).
    pub more: Option<String>,
    /// Width of a cell in pixels.
    pub cell_w: u32,
}

/// The whole picture.
#[derive(Clone, Debug, Default)]
pub struct Diagram {
    /// First line, bold.
    pub title: String,
    /// Lines under the title.
    pub notes: Vec<String>,
    /// Panels, laid out `per_row` to a row.
    pub panels: Vec<Panel>,
    pub per_row: usize,
    /// (fill, meaning).
    pub legend: Vec<(&'static str, String)>,
    /// Lines at the bottom.
    pub footer: Vec<String>,
}

const CH: u32 = 20;
const LABEL_W: u32 = 96;
const CHAR_W: f64 = 5.6;
const LINE: u32 = 14;
const GAP: u32 = 28;
const MARGIN: u32 = 16;

/// XML text escaping.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(ch),
        }
    }
    o
}

fn text_w(s: &str) -> u32 {
    (s.chars().count() as f64 * CHAR_W).ceil() as u32
}

impl Panel {
    fn ncols(&self) -> u32 {
        self.rows.iter().map(|r| r.cells.len()).max().unwrap_or(0) as u32
    }
    fn note_w(&self) -> u32 {
        self.rows
            .iter()
            .map(|r| text_w(&r.note))
            .max()
            .unwrap_or(0)
            .saturating_add(8)
    }
    fn grid_w(&self) -> u32 {
        self.ncols() * self.cell_w
    }
    fn header_h(&self) -> u32 {
        18 + self.caption.len() as u32 * LINE + if self.col_labels.is_empty() { 0 } else { 14 }
    }
    fn width(&self) -> u32 {
        let heads = std::iter::once(text_w(&self.title) + 10)
            .chain(self.caption.iter().map(|c| text_w(c)))
            .chain(self.more.iter().map(|m| text_w(m)))
            .max()
            .unwrap_or(0);
        (LABEL_W + self.grid_w() + self.note_w()).max(heads)
    }
    fn height(&self) -> u32 {
        self.header_h()
            + self.rows.len() as u32 * CH
            + if self.more.is_some() { LINE + 4 } else { 4 }
    }

    fn draw(&self, out: &mut String, x0: u32, y0: u32) {
        let _ = writeln!(
            out,
            r#"<text x="{x0}" y="{}" class="h">{}</text>"#,
            y0 + 12,
            esc(&self.title)
        );
        for (i, c) in self.caption.iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{x0}" y="{}" class="c">{}</text>"#,
                y0 + 18 + 11 + i as u32 * LINE,
                esc(c)
            );
        }
        let gx = x0 + LABEL_W;
        let gy = y0 + self.header_h();
        let cw = self.cell_w;
        for (j, l) in self.col_labels.iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" class="s" text-anchor="middle">{}</text>"#,
                gx + j as u32 * cw + cw / 2,
                gy - 4,
                esc(l)
            );
        }
        for (i, row) in self.rows.iter().enumerate() {
            let y = gy + i as u32 * CH;
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" class="s" text-anchor="end">{}</text>"#,
                gx - 6,
                y + 14,
                esc(&row.label)
            );
            for (j, cell) in row.cells.iter().enumerate() {
                let x = gx + j as u32 * cw;
                let mut attrs = String::new();
                for (k, v) in &cell.data {
                    let _ = write!(attrs, r#" data-{k}="{}""#, esc(v));
                }
                let _ = write!(
                    out,
                    r#"<g class="cell"{attrs}><title>{}</title>"#,
                    esc(&cell.tip)
                );
                match cell.fills.as_slice() {
                    [] => {
                        let _ = write!(
                            out,
                            r##"<rect class="k" x="{x}" y="{y}" width="{cw}" height="{CH}" fill="#ffffff"/>"##
                        );
                    }
                    [f] => {
                        let _ = write!(
                            out,
                            r#"<rect class="k" x="{x}" y="{y}" width="{cw}" height="{CH}" fill="{f}"/>"#
                        );
                    }
                    fills => {
                        let n = fills.len() as u32;
                        for (b, f) in fills.iter().enumerate() {
                            let b = b as u32;
                            let top = y + CH * b / n;
                            let h = CH * (b + 1) / n - CH * b / n;
                            let _ = write!(
                                out,
                                r#"<rect x="{x}" y="{top}" width="{cw}" height="{h}" fill="{f}"/>"#
                            );
                        }
                        let _ = write!(
                            out,
                            r#"<rect class="k" x="{x}" y="{y}" width="{cw}" height="{CH}" fill="none"/>"#
                        );
                    }
                }
                if !cell.text.is_empty() {
                    let _ = write!(
                        out,
                        r#"<text x="{}" y="{}" class="{}">{}</text>"#,
                        x + cw / 2,
                        y + 14,
                        if cell.dim { "d" } else { "t" },
                        esc(&cell.text)
                    );
                }
                out.push_str("</g>\n");
            }
            if !row.note.is_empty() {
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" class="s">{}</text>"#,
                    gx + self.grid_w() + 6,
                    y + 14,
                    esc(&row.note)
                );
            }
        }
        for o in &self.outlines {
            let (x, y) = (gx + o.c0 as u32 * cw, gy + o.r0 as u32 * CH);
            let (w, h) = (
                (o.c1.saturating_sub(o.c0)) as u32 * cw,
                (o.r1.saturating_sub(o.r0)) as u32 * CH,
            );
            let _ = writeln!(
                out,
                r##"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#222222" stroke-width="2.5"/>"##
            );
            if !o.label.is_empty() {
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" class="o" text-anchor="end">{}</text>"#,
                    x + w - 3,
                    y + h - 4,
                    esc(&o.label)
                );
            }
        }
        if let Some(m) = &self.more {
            let _ = writeln!(
                out,
                r#"<text x="{x0}" y="{}" class="c">{}</text>"#,
                gy + self.rows.len() as u32 * CH + LINE,
                esc(m)
            );
        }
    }
}

impl Diagram {
    /// The SVG text.
    pub fn svg(&self) -> String {
        let per_row = self.per_row.max(1);
        let rows: Vec<&[Panel]> = self.panels.chunks(per_row).collect();
        let head_h = 22 + self.notes.len() as u32 * LINE + 10;
        let mut body = String::new();
        let mut y = MARGIN + head_h;
        let mut width = text_w(&self.title) + 2 * MARGIN;
        for n in &self.notes {
            width = width.max(text_w(n) + 2 * MARGIN);
        }
        for row in &rows {
            let mut x = MARGIN;
            let mut h = 0;
            for p in row.iter() {
                p.draw(&mut body, x, y);
                x += p.width() + GAP;
                h = h.max(p.height());
            }
            width = width.max(x - GAP + MARGIN);
            y += h + GAP / 2;
        }
        // Legend.
        let mut x = MARGIN;
        let ly = y;
        for (fill, label) in &self.legend {
            let w = 14 + 6 + text_w(label) + 18;
            if x + w > width.max(700) - MARGIN && x > MARGIN {
                x = MARGIN;
                y += 20;
            }
            let _ = writeln!(
                body,
                r##"<rect x="{x}" y="{y}" width="14" height="14" fill="{fill}" stroke="#9a9a9a" stroke-width="0.5"/><text x="{}" y="{}" class="c">{}</text>"##,
                x + 20,
                y + 11,
                esc(label)
            );
            x += w;
            width = width.max(x + MARGIN);
        }
        if !self.legend.is_empty() {
            y += 24;
        }
        let _ = ly;
        for f in &self.footer {
            let _ = writeln!(
                body,
                r#"<text x="{MARGIN}" y="{}" class="c">{}</text>"#,
                y + 10,
                esc(f)
            );
            width = width.max(text_w(f) + 2 * MARGIN);
            y += LINE;
        }
        let height = y + MARGIN;
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace">"#
        );
        out.push_str(
            "<style>.h{font-size:12px;font-weight:bold}.c{font-size:10px;fill:#333}\
.s{font-size:9px;fill:#444}.t{font-size:9px;fill:#111;text-anchor:middle}\
.d{font-size:9px;fill:#aaa;text-anchor:middle}.o{font-size:9px;font-weight:bold;fill:#222}\
.T{font-size:14px;font-weight:bold}.k{stroke:#9a9a9a;stroke-width:0.5}</style>\n",
        );
        let _ = writeln!(
            out,
            r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
        );
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{}" class="T">{}</text>"#,
            MARGIN + 12,
            esc(&self.title)
        );
        for (i, n) in self.notes.iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{MARGIN}" y="{}" class="c">{}</text>"#,
                MARGIN + 22 + 10 + i as u32 * LINE,
                esc(n)
            );
        }
        out.push_str(&body);
        out.push_str("</svg>\n");
        out
    }
}

/// `0-3, 8, 10-12`: sorted values as runs.
pub fn runs(v: &[u64]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        if j == i {
            let _ = write!(out, "{}", v[i]);
        } else {
            let _ = write!(out, "{}-{}", v[i], v[j]);
        }
        i = j + 1;
    }
    out
}
