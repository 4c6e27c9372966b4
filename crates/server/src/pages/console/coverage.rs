//! The Sync page's coverage chart, one per merchant: a horizontal bar per dataset over the
//! days the provider lets it read, drawn as SVG with plotters — the days held, the recent
//! days the provider still restates (read again every run) and, while a backfill goes on, the
//! older days still to come. A dataset that holds nothing yet is a bar of days to come; one
//! that cannot be read has no bar.

use chrono::NaiveDate;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// One dataset's days.
pub struct Bar {
    pub dataset: String,
    /// The oldest day the provider lets it read (where a backfill ends).
    pub reach: Option<NaiveDate>,
    pub covered: Option<NaiveDate>,
    pub through: Option<NaiveDate>,
    /// The recent days every run reads again.
    pub restate_days: i64,
}

const HELD: RGBColor = RGBColor(46, 125, 50);
const RESTATING: RGBColor = RGBColor(240, 160, 40);
const TO_COME: RGBColor = RGBColor(205, 210, 215);

/// A day as the chart's x coordinate.
fn x(d: NaiveDate) -> i64 {
    (d - NaiveDate::default()).num_days()
}

/// The chart of `bars` (SVG text), or `None` when no bar has days to draw.
pub fn svg(bars: &[Bar]) -> Result<Option<String>, String> {
    let days = bars
        .iter()
        .flat_map(|b| [b.reach, b.covered, b.through])
        .flatten();
    let (Some(first), Some(last)) = (days.clone().min(), days.max()) else {
        return Ok(None);
    };
    let (x0, x1) = (x(first), x(last) + 1);
    let n = bars.len() as i32;
    let mut out = String::new();
    {
        let height = 70 + 26 * bars.len() as u32;
        let root = SVGBackend::with_string(&mut out, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .margin_top(30)
            .x_label_area_size(28)
            .y_label_area_size(190)
            .build_cartesian_2d(x0..x1, (0..(n - 1).max(1)).into_segmented())
            .map_err(|e| e.to_string())?;
        // the first dataset on top
        let row = |i: usize| n - 1 - i as i32;
        let name = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(y) if (0..n).contains(y) => bars
                .get((n - 1 - y) as usize)
                .map(|b| b.dataset.clone())
                .unwrap_or_default(),
            _ => String::new(),
        };
        let day = |v: &i64| {
            (NaiveDate::default() + chrono::Days::new(*v as u64))
                .format("%Y-%m")
                .to_string()
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(bars.len())
            .y_label_formatter(&name)
            .x_labels(8)
            .x_label_formatter(&day)
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(|e| e.to_string())?;
        let band = |i: usize, from: NaiveDate, to: NaiveDate, color: RGBColor| {
            let i = row(i);
            let mut r = Rectangle::new(
                [
                    (x(from), SegmentValue::Exact(i)),
                    (x(to) + 1, SegmentValue::Exact(i + 1)),
                ],
                color.filled(),
            );
            r.set_margin(4, 4, 0, 0);
            r
        };
        let parts = |pick: fn(&Bar) -> Option<(NaiveDate, NaiveDate)>| {
            bars.iter()
                .enumerate()
                .filter_map(move |(i, b)| pick(b).map(|(from, to)| (i, from, to)))
        };
        let to_come = parts(|b| {
            let reach = b.reach?;
            let end = b.covered.and_then(|c| c.pred_opt()).or(b.through)?;
            (end >= reach).then_some((reach, end))
        });
        let held = parts(|b| Some((b.covered?, b.through?)));
        let restating = parts(|b| {
            let (covered, through) = (b.covered?, b.through?);
            let from = through - chrono::Days::new(b.restate_days.max(1) as u64 - 1);
            (b.restate_days > 0).then_some((from.max(covered), through))
        });
        let series = [
            ("still to come", TO_COME, to_come.collect::<Vec<_>>()),
            ("held", HELD, held.collect()),
            ("re-read every run", RESTATING, restating.collect()),
        ];
        // the legend above the plot, from where the bars start
        let mut left = 198;
        for (label, color, _) in &series {
            root.draw(&Rectangle::new(
                [(left, 10), (left + 14, 22)],
                color.filled(),
            ))
            .map_err(|e| e.to_string())?;
            root.draw(&Text::new(*label, (left + 20, 9), ("sans-serif", 13)))
                .map_err(|e| e.to_string())?;
            left += 40 + 8 * label.len() as i32;
        }
        for (_, color, parts) in series {
            chart
                .draw_series(
                    parts
                        .into_iter()
                        .map(|(i, from, to)| band(i, from, to, color)),
                )
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(Some(out))
}
