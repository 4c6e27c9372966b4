//! `FCT-READINESS-01`: whether a scope can be forecast, from its months alone (no model is
//! fitted). The training window is the run of complete months with sales that ends at the
//! last complete month; its length is judged against the floors (12 months required, 18
//! recommended), with the month each verdict is (or was) first read and what would close
//! the gap.

use schemars::JsonSchema;
use serde::Serialize;

use super::history::History;
use crate::engines::{Answer, Input};
use crate::params::Month;

/// Complete months a forecast needs, and the months recommended.
pub const REQUIRED: usize = 12;
pub const RECOMMENDED: usize = 18;

/// What `FCT-READINESS-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ReadinessResult")]
pub struct ReadinessAnswer {
    /// The forecast state scope; null for a brand of several seller rows.
    pub scope_id: Option<String>,
    pub readiness: View,
    pub data_through: chrono::NaiveDate,
}

/// A scope's readiness, as answers show it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "Readiness")]
pub struct View {
    /// `ready`, `limited` or `not_ready`.
    pub verdict: &'static str,
    pub forecastable: bool,
    pub complete_months: usize,
    pub months_of_sales: usize,
    pub months_of_ad_spend: usize,
    pub trainable_overlap: usize,
    /// Null without a complete month of sales.
    pub training_window: Option<Window>,
    /// `YYYY-MM`.
    pub last_complete_month: Option<String>,
    /// The required floor (`limited`), then the recommended (`ready`).
    pub floors: [Floor; 2],
    pub to_close_the_gap: Vec<String>,
}

/// The training window's first and last months (`YYYY-MM`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "TrainingWindow")]
pub struct Window {
    pub from: String,
    pub through: String,
}

/// One floor and whether (and when) it is reached.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ReadinessFloor")]
pub struct Floor {
    pub floor: usize,
    pub verdict: &'static str,
    pub met: bool,
    pub months_short: usize,
    /// The month whose close reaches the floor (absent without a complete month).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached_with: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_forecast_month: Option<String>,
}

/// A scope's readiness.
#[derive(Debug, Clone)]
pub struct Readiness {
    /// The training window: complete months with sales, ending at the last complete month.
    pub window: Vec<Month>,
    pub sales_months: usize,
    pub spend_months: usize,
    /// Months of the window that also have ad spend.
    pub overlap: usize,
    pub last_complete: Option<Month>,
}

impl Readiness {
    pub fn months(&self) -> usize {
        self.window.len()
    }

    /// `ready` (18 or more), `limited` (12 to 17: a simpler model, wider ranges) or `not_ready`.
    pub fn verdict(&self) -> &'static str {
        match self.months() {
            n if n >= RECOMMENDED => "ready",
            n if n >= REQUIRED => "limited",
            _ => "not_ready",
        }
    }

    /// The month whose close brings the window to `floor` months, and so the first month a
    /// forecast under that verdict covers is the one after it.
    fn reached(&self, floor: usize) -> Option<(Month, bool)> {
        let last = self.last_complete?;
        let n = self.months();
        Some(if n >= floor {
            (self.window[floor - 1], true)
        } else {
            (last.back(-((floor - n) as i32)), false)
        })
    }

    fn floor(&self, floor: usize, name: &'static str) -> Floor {
        let n = self.months();
        match self.reached(floor) {
            Some((m, met)) => Floor {
                floor,
                verdict: name,
                met,
                months_short: floor.saturating_sub(n),
                reached_with: Some(m.label()),
                first_forecast_month: Some(m.back(-1).label()),
            },
            None => Floor {
                floor,
                verdict: name,
                met: false,
                months_short: floor,
                reached_with: None,
                first_forecast_month: None,
            },
        }
    }

    /// What would close the gap to the recommended floor.
    fn gaps(&self) -> Vec<String> {
        let n = self.months();
        let mut out = Vec::new();
        if n < RECOMMENDED {
            let through = self
                .last_complete
                .map(|m| m.back(-((RECOMMENDED - n) as i32)).label());
            out.push(format!(
                "{} more complete month{} of sales{}",
                RECOMMENDED - n,
                if RECOMMENDED - n == 1 { "" } else { "s" },
                through.map_or(String::new(), |t| format!(" (through {t})"))
            ));
            if self.sales_months > n {
                out.push("a month without sales breaks the training window: backfill the missing months if the warehouse lacks them".into());
            }
        }
        if self.overlap < n {
            out.push(format!(
                "ad spend in {} of the {n} training months: connect or backfill advertising history to use spend as a driver",
                self.overlap
            ));
        }
        out
    }

    /// The verdict as answers show it.
    pub fn view(&self) -> View {
        View {
            verdict: self.verdict(),
            forecastable: self.months() >= REQUIRED,
            complete_months: self.months(),
            months_of_sales: self.sales_months,
            months_of_ad_spend: self.spend_months,
            trainable_overlap: self.overlap,
            training_window: self
                .window
                .first()
                .zip(self.window.last())
                .map(|(a, b)| Window {
                    from: a.label(),
                    through: b.label(),
                }),
            last_complete_month: self.last_complete.map(|m| m.label()),
            floors: [
                self.floor(REQUIRED, "limited"),
                self.floor(RECOMMENDED, "ready"),
            ],
            to_close_the_gap: self.gaps(),
        }
    }
}

/// Judges `h`.
pub fn assess(h: &History) -> Readiness {
    let mut window = Vec::new();
    for (m, f) in h.complete.iter().rev() {
        if !f.has_sales() {
            break;
        }
        window.push(*m);
    }
    window.reverse();
    let overlap = h
        .complete
        .iter()
        .filter(|(m, f)| window.contains(m) && f.ad_spend_cents > 0)
        .count();
    Readiness {
        sales_months: h.complete.iter().filter(|(_, f)| f.has_sales()).count(),
        spend_months: h
            .complete
            .iter()
            .filter(|(_, f)| f.ad_spend_cents > 0)
            .count(),
        overlap,
        last_complete: h.last_complete(),
        window,
    }
}

/// The request.
pub async fn run(wh: &crate::data::Wh, input: &Input) -> pp_core::Result<Answer<ReadinessAnswer>> {
    let (h, _) = super::load(wh, input).await?;
    let r = assess(&h);
    let mut limitations = vec![
        "Readiness reads complete calendar months only; the running month is not counted."
            .to_owned(),
    ];
    if input.scope.brand.is_some() {
        limitations.push("A brand is summed by month over its seller rows, its own items and campaigns only; DSP spend is not split by brand.".into());
    }
    Ok(Answer {
        result: ReadinessAnswer {
            scope_id: super::state::scope_id(input),
            readiness: r.view(),
            data_through: h.data.end,
        },
        limitations,
        evidence: Vec::new(),
    })
}
