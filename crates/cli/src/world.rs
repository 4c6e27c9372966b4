//! `partner-platform world generate`: writes a deterministic demo world (a tenant warehouse and
//! its ground truth) to a folder.

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
    /// Generate a world: <out>/warehouse.sqlite and <out>/ground-truth.json.
    Generate {
        /// tiny, small or large.
        #[arg(long, default_value = "small")]
        scale: String,
        /// Random seed: the same seed gives the same bytes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output folder (must not already hold a warehouse).
        #[arg(long)]
        out: PathBuf,
        /// The anchor day (YYYY-MM-DD); data runs through the day before. Default: today (UTC).
        #[arg(long)]
        today: Option<NaiveDate>,
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
            today,
        } => {
            let spec = WorldSpec {
                seed,
                scale: Scale::parse(&scale)?,
                today: today.unwrap_or_else(|| chrono::Utc::now().date_naive()),
            };
            let started = Instant::now();
            let g = pp_world::generate_sqlite(&spec, &out)?;
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
