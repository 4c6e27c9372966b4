//! The demo world: a deterministic, seeded picture of one tenant's business — sellers in US,
//! CA and MX (one merchant token in two marketplaces) and a vendor, brands and sub-brands,
//! items, advertising and DSP, and three years of daily facts — with injected events whose
//! truth is kept, so bridges and forecasts have something true to find. Same seed, same
//! bytes. Rows go through the [`Loader`] interface; [`generate_sqlite`] writes a tenant
//! warehouse file and its `ground-truth.json`, [`generate_server`] fills a PostgreSQL or
//! MySQL/MariaDB database.

mod arrival;
mod doc;
mod economics;
mod entities;
mod events;
pub mod hours;
mod load;
mod model;
mod rng;
mod sim;
mod spec;

use std::path::{Path, PathBuf};

pub use doc::schema_markdown;
pub use economics::rates::{CURRENCIES, convert};
pub use economics::truth::{CostPeriod, Economics, Month, Pnl, REPORTING, Settlement};
pub use economics::{FeeEstimate, Fees};
pub use events::Event;
pub use load::server::is_database_url;
pub use load::{Loader, ServerLoader, SqliteLoader};
use rng::Rng;
pub use sim::{DSP_ADVERTISER_ID, DSP_SEAT_ID};
pub use spec::{
    ATTRIBUTION_DAYS, BRANDS, DAYS, MERCHANTS, MerchantDef, Scale, WorldSpec, fleet_merchant,
};

/// The ground truth of a generated world.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GroundTruth {
    /// Seed used.
    pub seed: u64,
    /// Scale name.
    pub scale: String,
    /// First data day.
    pub first_day: chrono::NaiveDate,
    /// Last complete data day.
    pub last_day: chrono::NaiveDate,
    /// Tiny sellers after the fixed merchants (written only when there are some).
    #[serde(skip_serializing_if = "is_zero")]
    pub fleet: usize,
    /// Every injected event.
    pub events: Vec<Event>,
    /// What the sellers earned: P&L truth, settlements, costs, fees and exchange rates.
    pub economics: economics::truth::Economics,
    /// Every campaign's hour profile: what the sandbox's stream splits its days by.
    pub hours: Vec<hours::HourProfile>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Generates the world of `spec` into `loader`.
pub fn generate(spec: &WorldSpec, mut loader: Box<dyn Loader>) -> Result<GroundTruth, String> {
    let mut rng = Rng::new(spec.seed);
    let model = model::build(spec, &mut rng);
    let mut plan = events::plan(spec, &model, &mut rng);
    entities::write(spec, &model, &plan, loader.as_mut())?;
    let economics = sim::run(spec, &model, &mut plan, &mut rng, loader.as_mut())?;
    loader.finish()?;
    Ok(GroundTruth {
        seed: spec.seed,
        scale: format!("{:?}", spec.scale).to_lowercase(),
        first_day: spec.first_day(),
        last_day: spec.last_day(),
        fleet: spec.fleet,
        events: plan.events,
        economics,
        hours: model
            .campaigns
            .iter()
            .map(|c| hours::profile(spec.seed, c.id))
            .collect(),
    })
}

/// Loads the world of `spec` into the empty database at `url` (`postgres://…`, `mysql://…`
/// or `mariadb://…`); the load is all or nothing.
pub fn generate_server(spec: &WorldSpec, url: &str) -> Result<GroundTruth, String> {
    generate(spec, Box::new(ServerLoader::connect(url)?))
}

/// The files a generated world lives in.
pub struct Generated {
    /// The warehouse file.
    pub warehouse: PathBuf,
    /// The ground truth file.
    pub ground_truth: PathBuf,
    /// The world's reference exchange rates (`reference-rates.csv`, [`reference_rates_csv`]).
    pub rates: PathBuf,
    /// The sellers' landed costs as the gateway's cost file (`landed-costs.csv`).
    pub costs: PathBuf,
    /// The ground truth itself.
    pub truth: GroundTruth,
}

/// The world's exchange rates as a reference-rate file in the ECB's historical format: a
/// header `Date,USD,CAD,MXN`, then one line per working day, newest first, each rate the units
/// of that currency per euro with four decimals.
pub fn reference_rates_csv(truth: &GroundTruth) -> String {
    let mut out = format!("Date,{}\n", CURRENCIES.join(","));
    for day in truth.economics.rates.iter().rev() {
        let rates: Vec<String> = day
            .per_eur_e4
            .iter()
            .map(|r| format!("{}.{:04}", r / 10_000, r % 10_000))
            .collect();
        out.push_str(&format!("{},{}\n", day.date, rates.join(",")));
    }
    out
}

/// Creates `file` empty and readable by its owner alone.
fn private_file(file: &Path) -> Result<(), String> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(file)
        .map(drop)
        .map_err(|e| format!("{}: {e}", file.display()))
}

/// Writes `warehouse.sqlite`, `ground-truth.json`, `reference-rates.csv` and `landed-costs.csv`
/// into `dir` (created if needed, the owner's alone: folders `0700`, files `0600`). Each is
/// built beside their final names and renamed into place, so an interrupted run leaves
/// nothing half-written. Refuses to overwrite an existing warehouse.
pub fn generate_sqlite(spec: &WorldSpec, dir: &Path) -> Result<Generated, String> {
    // a warehouse is a tenant's business: its folders and files are the owner's alone
    pp_warehouse::managed::private_dir(dir)?;
    let warehouse = dir.join("warehouse.sqlite");
    let ground_truth = dir.join("ground-truth.json");
    let rates = dir.join("reference-rates.csv");
    if warehouse.exists() {
        return Err(format!("{} already exists", warehouse.display()));
    }
    let tmp = dir.join("warehouse.sqlite.building");
    let _ = std::fs::remove_file(&tmp);
    // SQLite keeps the mode of the file it opens (and gives its journal the same)
    private_file(&tmp)?;
    let truth = generate(spec, Box::new(SqliteLoader::create(&tmp)?))?;
    let json = serde_json::to_vec_pretty(&truth).map_err(|e| e.to_string())?;
    let tmp_truth = dir.join("ground-truth.json.building");
    let _ = std::fs::remove_file(&tmp_truth);
    private_file(&tmp_truth)?;
    std::fs::write(&tmp_truth, json).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp_truth, &ground_truth).map_err(|e| e.to_string())?;
    let tmp_rates = dir.join("reference-rates.csv.building");
    let _ = std::fs::remove_file(&tmp_rates);
    private_file(&tmp_rates)?;
    std::fs::write(&tmp_rates, reference_rates_csv(&truth)).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp_rates, &rates).map_err(|e| e.to_string())?;
    let costs = dir.join("landed-costs.csv");
    let tmp_costs = dir.join("landed-costs.csv.building");
    let _ = std::fs::remove_file(&tmp_costs);
    private_file(&tmp_costs)?;
    let text = economics::tenant::costs_csv(&truth.economics, spec.merchants());
    std::fs::write(&tmp_costs, text).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp_costs, &costs).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, &warehouse).map_err(|e| e.to_string())?;
    Ok(Generated {
        warehouse,
        ground_truth,
        rates,
        costs,
        truth,
    })
}
