//! The world moving forward: `POST /__sandbox/advance {"days": N}` (and `sim --advance N`)
//! makes the world's today N days later, as the provider adds a day every day. The new world
//! is the same world generated at the later today from the same seed, scale and origin
//! (`pp_world::WorldSpec::advanced`): every day it had stays as it was, except the advertising
//! days inside the attribution window, whose attributed conversions and sales grow to their
//! final values. It is written beside the sandbox's state (`worlds/<today>/`) and served from
//! then on, also after a restart (`world-advanced.json` records it).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::SimError;
use crate::sim::{Sim, SimConfig};
use crate::world::World;

/// The most days one call moves the world.
pub const MOST_DAYS: i64 = 366;

/// Which world a sandbox of `from` serves after moving forward.
#[derive(Serialize, Deserialize)]
struct Advanced {
    from: PathBuf,
    warehouse: PathBuf,
}

fn record_path(config: &SimConfig) -> PathBuf {
    config.data_dir.join("world-advanced.json")
}

/// The world a sandbox opens: the configured one, or the world it moved that one forward to.
pub fn current(config: &SimConfig) -> Result<World, SimError> {
    let record = std::fs::read(record_path(config))
        .ok()
        .and_then(|b| serde_json::from_slice::<Advanced>(&b).ok())
        .filter(|a| a.from == config.world && a.warehouse.exists());
    match record {
        Some(a) => World::open(&a.warehouse),
        None => World::open(&config.world),
    }
}

/// One move at a time.
static MOVING: Mutex<()> = Mutex::new(());

/// Moves the served world `days` days forward; what it serves now. Blocking (it generates
/// the world): call it off the async runtime.
pub fn advance(sim: &Sim, days: i64) -> Result<Value, SimError> {
    if !(1..=MOST_DAYS).contains(&days) {
        return Err(SimError::invalid(format!(
            "days is 1 to {MOST_DAYS}, not {days}"
        )));
    }
    let _one = MOVING.lock().unwrap_or_else(|p| p.into_inner());
    let before = sim.world();
    let spec = before.spec.ok_or_else(|| {
        SimError::invalid(
            "this world has no ground-truth.json beside it (seed, scale, origin): it cannot be moved forward",
        )
    })?;
    let next = spec.advanced(days);
    let dir = sim
        .config
        .data_dir
        .join("worlds")
        .join(next.today.to_string());
    let warehouse = dir.join("warehouse.sqlite");
    if !warehouse.exists() {
        pp_world::generate_sqlite(&next, &dir).map_err(SimError::internal)?;
    }
    let world = World::open(&warehouse)?;
    let answer = describe(&world);
    write_record(
        &record_path(&sim.config),
        &Advanced {
            from: sim.config.world.clone(),
            warehouse: warehouse.clone(),
        },
    )?;
    sim.replace_world(world);
    forget_older(&sim.config.data_dir.join("worlds"), &dir);
    tracing::info!(today = %next.today, "the sandbox's world moved forward");
    Ok(answer)
}

/// What a world is: its first and last data days and its today.
pub fn describe(world: &World) -> Value {
    json!({
        "firstDay": world.spec.map(|s| s.first_day()),
        "lastDay": world.last_day,
        "today": world.today(),
    })
}

fn write_record(path: &Path, a: &Advanced) -> Result<(), SimError> {
    let tmp = path.with_extension("json.writing");
    let text = serde_json::to_vec_pretty(a).map_err(SimError::internal)?;
    std::fs::write(&tmp, text).map_err(SimError::internal)?;
    std::fs::rename(&tmp, path).map_err(SimError::internal)
}

/// Removes the worlds moved to before `keep` (readers still holding one keep their open
/// files until they let go).
fn forget_older(worlds: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(worlds) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p != keep
            && let Err(err) = std::fs::remove_dir_all(&p)
        {
            tracing::warn!(path = %p.display(), %err, "an older world was not removed");
        }
    }
}
