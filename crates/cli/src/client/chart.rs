//! Charts of intelligence answers, drawn as SVG with plotters: a forecast (`FCT-BASELINE-01`)
//! as its history, its expected months and their 95% range; a bridge (`INS-OPS-BRIDGE-01`,
//! `INS-ADS-BRIDGE-01`) as a waterfall from the compared period's total, through each
//! effect, to the period's total. The answer is read as the gateway gave it; a month or
//! effect the answer leaves empty is left out, never drawn as zero.

use std::path::Path;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

use super::{Failure, exit};

/// The requests a chart can be drawn for.
pub const CHARTED: &[&str] = &["FCT-BASELINE-01", "INS-OPS-BRIDGE-01", "INS-ADS-BRIDGE-01"];

/// One bridge: where it starts, the effects in order, where it ends.
struct Waterfall {
    title: String,
    start: (String, f64),
    steps: Vec<(String, f64)>,
    end: (String, f64),
}

/// A month of a forecast chart: history (`actual`) or forecast (`expected` in a range).
struct Month {
    label: String,
    actual: Option<f64>,
    expected: Option<f64>,
    range: Option<(f64, f64)>,
}

fn drawing(e: impl std::fmt::Display) -> Failure {
    Failure::local(exit::OTHER, format!("cannot draw the chart: {e}"))
}

/// Draws the chart of request `id`'s `result` into `path`.
pub fn draw(id: &str, result: &Value, path: &Path) -> Result<(), Failure> {
    match id {
        "FCT-BASELINE-01" => forecast(result, path),
        "INS-OPS-BRIDGE-01" => {
            let t = &result["totals"];
            waterfalls(
                &[bridge(
                    "Ordered sales",
                    &t["before"],
                    &t["effects"],
                    &t["after"],
                    "sales",
                )],
                path,
            )
        }
        "INS-ADS-BRIDGE-01" => {
            let t = &result["totals"];
            waterfalls(
                &[
                    bridge(
                        "Advertising sales",
                        &t["before"],
                        &t["sales"]["effects"],
                        &t["after"],
                        "sales",
                    ),
                    bridge(
                        "Advertising spend",
                        &t["before"],
                        &t["spend"]["effects"],
                        &t["after"],
                        "spend",
                    ),
                ],
                path,
            )
        }
        other => Err(Failure::local(
            exit::USAGE,
            format!(
                "no chart for {other}; charts are drawn for {}",
                CHARTED.join(", ")
            ),
        )),
    }
}

fn bridge(title: &str, before: &Value, effects: &Value, after: &Value, field: &str) -> Waterfall {
    let steps = effects
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_f64().map(|v| (k.clone(), v)))
                .collect()
        })
        .unwrap_or_default();
    Waterfall {
        title: title.to_owned(),
        start: ("before".into(), before[field].as_f64().unwrap_or(0.0)),
        steps,
        end: ("after".into(), after[field].as_f64().unwrap_or(0.0)),
    }
}

/// The months of a forecast answer: its `history`, then its `months` (in the units document
/// when the measure is units).
fn months(result: &Value) -> Vec<Month> {
    let rows = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let text = |v: &Value| v["month"].as_str().unwrap_or_default().to_owned();
    let history = rows(&result["history"]).into_iter().map(|h| Month {
        label: text(&h),
        actual: h["actual"].as_f64(),
        expected: None,
        range: None,
    });
    let served = match &result["months"] {
        Value::Array(_) => &result["months"],
        _ => &result["document"]["months"],
    };
    let forecast = rows(served).into_iter().map(|m| Month {
        label: text(&m),
        actual: None,
        expected: m["expected"].as_f64(),
        range: m["lower"].as_f64().zip(m["upper"].as_f64()),
    });
    history.chain(forecast).collect()
}

/// The forecast chart: history in black, expected months in blue inside their shaded range.
fn forecast(result: &Value, path: &Path) -> Result<(), Failure> {
    let months = months(result);
    if !months.iter().any(|m| m.expected.is_some()) {
        let why = result["reason"]
            .as_str()
            .unwrap_or("the answer has no forecast months");
        return Err(Failure::local(
            exit::OTHER,
            format!("nothing to chart: {why}"),
        ));
    }
    let values = months
        .iter()
        .flat_map(|m| {
            [
                m.actual,
                m.expected,
                m.range.map(|r| r.0),
                m.range.map(|r| r.1),
            ]
        })
        .flatten();
    let (lo, hi) = values.fold((0f64, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let unit = match result["measure"].as_str() {
        Some("units") => "units".to_owned(),
        _ => format!("sales ({})", result["currency"].as_str().unwrap_or("")),
    };
    let n = months.len() as i32;
    let root = SVGBackend::new(path, (1100, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(drawing)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Forecast: {unit}, 95% range"), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(70)
        .y_label_area_size(90)
        .build_cartesian_2d(0..n - 1, lo..hi * 1.05)
        .map_err(drawing)?;
    let label = |x: &i32| {
        months
            .get(*x as usize)
            .map(|m| m.label.clone())
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .x_labels(months.len())
        .x_label_formatter(&label)
        .x_label_style(
            ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .y_label_formatter(&|v| amount(*v, false))
        .y_desc(unit.clone())
        .draw()
        .map_err(drawing)?;
    let at = |pick: fn(&Month) -> Option<f64>| -> Vec<(i32, f64)> {
        months
            .iter()
            .enumerate()
            .filter_map(|(i, m)| pick(m).map(|v| (i as i32, v)))
            .collect()
    };
    let lower = at(|m| m.range.map(|r| r.0));
    let upper = at(|m| m.range.map(|r| r.1));
    let band: Vec<(i32, f64)> = upper.iter().chain(lower.iter().rev()).copied().collect();
    let shade = BLUE.mix(0.18);
    chart
        .draw_series(std::iter::once(Polygon::new(band, shade.filled())))
        .map_err(drawing)?
        .label("95% range")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], shade.filled()));
    chart
        .draw_series(LineSeries::new(at(|m| m.actual), BLACK.stroke_width(2)))
        .map_err(drawing)?
        .label("history")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    // the forecast line starts from the last month of history, so the two read as one line
    let mut expected = at(|m| m.expected);
    if let (Some(last), Some(first)) = (at(|m| m.actual).last(), expected.first())
        && last.0 < first.0
    {
        expected.insert(0, *last);
    }
    chart
        .draw_series(LineSeries::new(expected, BLUE.stroke_width(2)))
        .map_err(drawing)?
        .label("forecast")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(drawing)?;
    root.present().map_err(drawing)
}

/// The bridges side by side, one waterfall each.
fn waterfalls(bridges: &[Waterfall], path: &Path) -> Result<(), Failure> {
    let root = SVGBackend::new(path, (560 * bridges.len() as u32, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(drawing)?;
    for (area, w) in root.split_evenly((1, bridges.len())).iter().zip(bridges) {
        waterfall(area, w)?;
    }
    root.present().map_err(drawing)
}

/// The value axis of a waterfall: from below the lowest running total to above the highest.
/// Effects are small beside totals, so the axis starts near them rather than at zero (the
/// caption says where it starts) unless the totals reach zero or below.
fn value_axis(totals: &[f64]) -> (f64, f64) {
    let min = totals.iter().copied().fold(f64::INFINITY, f64::min);
    let max = totals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = (max - min).max(max.abs() * 0.01).max(1.0);
    let lo = if min <= 0.0 {
        min - span * 0.1
    } else {
        (min - span * 0.8).max(0.0)
    };
    (lo, max + span * 0.15)
}

/// One waterfall: the start and end as bars standing on the axis, each effect as a bar
/// floating from the running total (green up, red down), its amount above it.
fn waterfall(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    w: &Waterfall,
) -> Result<(), Failure> {
    let mut totals = vec![w.start.1];
    for (_, v) in &w.steps {
        totals.push(totals[totals.len() - 1] + v);
    }
    totals.push(w.end.1);
    let (lo, hi) = value_axis(&totals);
    // (label, bottom, top, colour) per bar
    let mut bars = vec![(w.start.0.clone(), lo, w.start.1, BLUE.mix(0.7))];
    for (k, (name, v)) in w.steps.iter().enumerate() {
        let colour = if *v >= 0.0 {
            GREEN.mix(0.7)
        } else {
            RED.mix(0.7)
        };
        bars.push((name.clone(), totals[k], totals[k + 1], colour));
    }
    bars.push((w.end.0.clone(), lo, w.end.1, BLUE.mix(0.7)));
    let title = if lo > 0.0 {
        format!("{} (axis from {})", w.title, amount(lo, false))
    } else {
        w.title.clone()
    };
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d((0..bars.len() as i32).into_segmented(), lo..hi)
        .map_err(drawing)?;
    let name = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(bars.len() + 1)
        .x_label_formatter(&name)
        .y_label_formatter(&|v| amount(*v, false))
        .draw()
        .map_err(drawing)?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, (_, a, b, colour))| {
            let i = i as i32;
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), a.min(*b)),
                    (SegmentValue::Exact(i + 1), a.max(*b)),
                ],
                colour.filled(),
            );
            r.set_margin(0, 0, 10, 10);
            r
        }))
        .map_err(drawing)?;
    let lift = (hi - lo) * 0.01;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, (_, a, b, _))| {
            let total = i == 0 || i == bars.len() - 1;
            let text = if total {
                amount(*b, false)
            } else {
                amount(b - a, true)
            };
            let style = TextStyle::from(("sans-serif", 12).into_font())
                .pos(Pos::new(HPos::Center, VPos::Bottom));
            Text::new(
                text,
                (SegmentValue::CenterOf(i as i32), a.max(*b) + lift),
                style,
            )
        }))
        .map_err(drawing)?;
    Ok(())
}

/// `v` with thousands separators, to the cent below 10,000 and whole above; `signed` puts a
/// `+` before a positive amount.
fn amount(v: f64, signed: bool) -> String {
    let decimals = if v.abs() < 10_000.0 { 2 } else { 0 };
    let text = format!("{:.*}", decimals, v.abs());
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits: Vec<char> = whole.chars().collect();
    let mut grouped = String::new();
    for (i, d) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(*d);
    }
    let sign = if v < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else if signed && v > 0.0 {
        "+"
    } else {
        ""
    };
    match frac {
        "" => format!("{sign}{grouped}"),
        f => format!("{sign}{grouped}.{f}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_money() {
        assert_eq!(amount(447521.2, false), "447,521");
        assert_eq!(amount(-13407.98, true), "-13,408");
        assert_eq!(amount(3191.57, true), "+3,191.57");
        assert_eq!(amount(-613.15, true), "-613.15");
        assert_eq!(amount(0.0, true), "0.00");
        assert_eq!(amount(-0.001, false), "0.00");
    }

    #[test]
    fn a_waterfall_axis_starts_near_its_totals_unless_they_reach_zero() {
        let (lo, hi) = value_axis(&[447_521.2, 450_712.77, 447_795.76]);
        assert!(lo > 440_000.0 && lo < 447_521.2, "{lo}");
        assert!(hi > 450_712.77);
        let (lo, _) = value_axis(&[100.0, -20.0, 30.0]);
        assert!(lo < -20.0);
    }
}
