//! The Profit page's bridge as a waterfall, drawn as SVG with plotters: the earlier month's
//! contribution as a bar from zero, each part of the change as a bar from the running total
//! (green up, red down), and the later month's contribution as a bar from zero, each labelled
//! with its amount.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

const TOTAL: RGBColor = RGBColor(55, 90, 140);
const UP: RGBColor = RGBColor(46, 125, 50);
const DOWN: RGBColor = RGBColor(198, 40, 40);

/// A bar of the waterfall: its label and amount (a total from zero, or a step).
pub struct Bar {
    pub label: String,
    pub amount: f64,
    pub total: bool,
}

fn amount(v: f64) -> String {
    let sign = if v < 0.0 { "−" } else { "" };
    let v = v.abs();
    if v >= 1_000_000.0 {
        format!("{sign}{:.1}M", v / 1_000_000.0)
    } else if v >= 10_000.0 {
        format!("{sign}{:.0}k", v / 1_000.0)
    } else {
        format!("{sign}{v:.0}")
    }
}

/// The waterfall of `bars` (SVG text).
pub fn svg(bars: &[Bar]) -> Result<String, String> {
    // each bar's span: from, to
    let mut running = 0.0;
    let spans: Vec<(f64, f64)> = bars
        .iter()
        .map(|b| {
            if b.total {
                running = b.amount;
                (0.0, b.amount)
            } else {
                let from = running;
                running += b.amount;
                (from, running)
            }
        })
        .collect();
    let lo = spans
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .fold(0.0_f64, f64::min);
    let hi = spans
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .fold(0.0_f64, f64::max);
    let pad = ((hi - lo) * 0.12).max(1.0);
    let n = bars.len() as i32;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (760, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(46)
            .y_label_area_size(70)
            .build_cartesian_2d((0..n - 1).into_segmented(), (lo - pad)..(hi + pad))
            .map_err(|e| e.to_string())?;
        let name = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => bars
                .get(*i as usize)
                .map(|b| b.label.clone())
                .unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len())
            .x_label_formatter(&name)
            .y_label_formatter(&|v| amount(*v))
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                bars.iter()
                    .zip(&spans)
                    .enumerate()
                    .map(|(i, (b, (from, to)))| {
                        let color = match (b.total, b.amount >= 0.0) {
                            (true, _) => TOTAL,
                            (false, true) => UP,
                            (false, false) => DOWN,
                        };
                        let i = i as i32;
                        let mut r = Rectangle::new(
                            [
                                (SegmentValue::Exact(i), from.min(*to)),
                                (SegmentValue::Exact(i + 1), from.max(*to)),
                            ],
                            color.filled(),
                        );
                        r.set_margin(0, 0, 10, 10);
                        r
                    }),
            )
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                bars.iter()
                    .zip(&spans)
                    .enumerate()
                    .map(|(i, (b, (from, to)))| {
                        Text::new(
                            amount(b.amount),
                            (SegmentValue::CenterOf(i as i32), from.max(*to) + pad * 0.3),
                            ("sans-serif", 12).into_font().color(&BLACK).pos(
                                plotters::style::text_anchor::Pos::new(
                                    plotters::style::text_anchor::HPos::Center,
                                    plotters::style::text_anchor::VPos::Bottom,
                                ),
                            ),
                        )
                    }),
            )
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waterfall_draws_a_bar_and_a_label_for_each_part() {
        let bars = [
            Bar {
                label: "September".into(),
                amount: 1000.0,
                total: true,
            },
            Bar {
                label: "price".into(),
                amount: 250.0,
                total: false,
            },
            Bar {
                label: "cost".into(),
                amount: -400.0,
                total: false,
            },
            Bar {
                label: "October".into(),
                amount: 850.0,
                total: true,
            },
        ];
        let svg = svg(&bars).unwrap();
        assert!(svg.starts_with("<svg"));
        for label in ["September", "price", "cost", "October", "−400"] {
            assert!(svg.contains(label), "{label}");
        }
        assert!(
            svg.contains("#C62828")
                || svg.to_lowercase().contains("rgb(198,40,40)")
                || svg.contains("#c62828")
        );
    }
}
