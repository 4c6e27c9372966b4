//! `partner-platform world generate`: writes a deterministic demo world (a tenant warehouse and
//! its ground truth) to a folder, or loads it into an empty PostgreSQL or MySQL/MariaDB
//! database.

use std::path::PathBuf;
use std::time::Instant;

use chrono::NaiveDate;
use clap::{Args, Subcommand};
use pp_world::{Scale, WorldSpec};

#[derive(Args)]
pub struct WorldArgs {
    #[command(subcommand)]
    command: WorldCommand,
}

#[derive(Subcommand)]
enum WorldCommand {
    /// Generate a world: <out>/warehouse.sqlite and <out>/ground-truth.json, or into the empty
    /// database an --out URL names (postgres://…, mysql://…, mariadb://…).
    Generate {
        /// tiny, small or large.
        #[arg(long, default_value = "small")]
        scale: String,
        /// Random seed: the same seed gives the same bytes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output folder (must not already hold a warehouse), or a database URL.
        #[arg(long)]
        out: String,
        /// Where to write ground-truth.json when --out is a database URL.
        #[arg(long)]
        truth: Option<PathBuf>,
        /// The anchor day (YYYY-MM-DD); data runs through the day before. Default: today (UTC).
        #[arg(long)]
        today: Option<NaiveDate>,
        /// The first data day (YYYY-MM-DD), for a world moved forward: the same seed, scale and
        /// origin at a later --today is the same world with more days. Default: 1,096 days
        /// before --today.
        #[arg(long)]
        origin: Option<NaiveDate>,
        /// Tiny sellers to add after the demo merchants, each its own selling partner in the
        /// US marketplace with one brand and an advertising profile (load tests of many
        /// tenants: `sim` serves them all, each with its own grants and usage plans).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=5000))]
        fleet: u16,
    },
    /// Print the warehouse schema as Markdown (the source of docs/warehouse.md).
    SchemaDoc,
}

pub fn run(args: WorldArgs) -> Result<(), String> {
    match args.command {
        WorldCommand::SchemaDoc => {
            print!("{}", pp_world::schema_markdown());
            Ok(())
        }
        WorldCommand::Generate {
            scale,
            seed,
            out,
            truth,
            today,
            origin,
            fleet,
        } => {
            let mut spec = WorldSpec::new(
                seed,
                Scale::parse(&scale)?,
                today.unwrap_or_else(|| chrono::Utc::now().date_naive()),
            )
            .with_fleet(fleet.into());
            if let Some(origin) = origin {
                if origin >= spec.today {
                    return Err(format!(
                        "--origin {origin} must come before --today {}",
                        spec.today
                    ));
                }
                spec.origin = origin;
            }
            let started = Instant::now();
            if pp_world::is_database_url(&out) {
                return into_database(&spec, &out, truth.as_deref(), started);
            }
            let g = pp_world::generate_sqlite(&spec, std::path::Path::new(&out))?;
            let size = std::fs::metadata(&g.warehouse)
                .map(|m| m.len())
                .unwrap_or(0);
            println!(
                "generated the {scale} world (seed {seed}, data {} to {}) in {:.1} s\n  {} ({:.1} MiB)\n  {} ({} events)",
                g.truth.first_day,
                g.truth.last_day,
                started.elapsed().as_secs_f64(),
                g.warehouse.display(),
                size as f64 / 1_048_576.0,
                g.ground_truth.display(),
                g.truth.events.len()
            );
            Ok(())
        }
    }
}

/// Loads the world into the database at `url`, and its truth into `truth` when given.
fn into_database(
    spec: &WorldSpec,
    url: &str,
    truth: Option<&std::path::Path>,
    started: Instant,
) -> Result<(), String> {
    let shown = pp_store::redact_password(url);
    let t = pp_world::generate_server(spec, url).map_err(|e| format!("{shown}: {e}"))?;
    if let Some(path) = truth {
        let json = serde_json::to_vec_pretty(&t).map_err(|e| e.to_string())?;
        std::fs::write(path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    println!(
        "loaded the {} world (seed {}, data {} to {}) into {shown} in {:.1} s ({} events)",
        t.scale,
        t.seed,
        t.first_day,
        t.last_day,
        started.elapsed().as_secs_f64(),
        t.events.len()
    );
    Ok(())
}
