//! The Hours page's heatmap, drawn as SVG with plotters: a campaign's week as 7 rows (Monday
//! first) of 24 hours, each cell coloured by its conversion against the campaign's (`index`:
//! green above 1, red below, white at 1, stronger further off), a cell judged on fewer clicks
//! than it needs (its hour of the day's or the campaign's rate) drawn paler, and the four best
//! hours of the day framed.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// One cell: day of the week (0 Monday), hour, the index it is coloured by, and whether it
/// stands on its own clicks.
pub struct Cell {
    pub day: u32,
    pub hour: u32,
    pub index: Option<f64>,
    pub own: bool,
}

const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// The colour of `index` (none: grey); paler when the cell is not its own.
fn colour(index: Option<f64>, own: bool) -> RGBColor {
    let Some(i) = index else {
        return RGBColor(224, 224, 224);
    };
    // 0.5 and below fully red, 1.5 and above fully green
    let t = ((i - 1.0) * 2.0).clamp(-1.0, 1.0);
    let strength = if own { 1.0 } else { 0.45 };
    let mix = |full: u8| -> u8 {
        let f = t.abs() * strength;
        (255.0 - (255.0 - f64::from(full)) * f).round() as u8
    };
    if t >= 0.0 {
        RGBColor(mix(46), mix(125), mix(50))
    } else {
        RGBColor(mix(198), mix(40), mix(40))
    }
}

/// The heatmap of `cells`, the hours `best` (`start..end`) framed (SVG text).
pub fn svg(cells: &[Cell], best: Option<(u32, u32)>) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (760, 250)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(40)
            // seven segments, rows 0 to 6
            .build_cartesian_2d(0u32..24u32, (0u32..6u32).into_segmented())
            .map_err(|e| e.to_string())?;
        // a row's label at its middle, Monday on top (day d is row 6 - d)
        let day = |v: &SegmentValue<u32>| match v {
            SegmentValue::CenterOf(r) => DAYS
                .get(6 - (*r).min(6) as usize)
                .copied()
                .unwrap_or("")
                .to_owned(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(12)
            .x_label_formatter(&|h| format!("{h:02}"))
            .y_labels(7)
            .y_label_formatter(&day)
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(cells.iter().map(|c| {
                let row = 6 - c.day.min(6);
                Rectangle::new(
                    [
                        (c.hour, SegmentValue::Exact(row)),
                        (
                            c.hour + 1,
                            if row == 6 {
                                SegmentValue::Last
                            } else {
                                SegmentValue::Exact(row + 1)
                            },
                        ),
                    ],
                    colour(c.index, c.own).filled(),
                )
            }))
            .map_err(|e| e.to_string())?;
        if let Some((start, end)) = best {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(start, SegmentValue::Exact(0)), (end, SegmentValue::Last)],
                    BLACK.stroke_width(2),
                )))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_week_draws_a_cell_for_each_hour_and_frames_the_best_hours() {
        let cells: Vec<Cell> = (0..7)
            .flat_map(|d| (0..24).map(move |h| (d, h)))
            .map(|(day, hour)| Cell {
                day,
                hour,
                index: Some(if (14..18).contains(&hour) { 1.8 } else { 0.9 }),
                own: day < 5,
            })
            .collect();
        let svg = svg(&cells, Some((14, 18))).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.matches("<rect").count() >= 168, "a rect for each cell");
        for label in ["Mon", "Sun", "14"] {
            assert!(svg.contains(label), "{label}");
        }
        // each day once: its row's label
        let once = |day: &str| svg.lines().filter(|l| l.trim() == day).count();
        assert_eq!((once("Mon"), once("Sun")), (1, 1), "{svg}");
        // the best hours in full green, a weekend's paler
        assert_ne!(colour(Some(1.8), true), colour(Some(1.8), false));
        assert_eq!(colour(Some(1.0), true), RGBColor(255, 255, 255));
    }
}
