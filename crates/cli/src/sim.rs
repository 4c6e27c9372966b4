//! `partner-platform sim`: the sandbox provider on its own — LWA, the selling-side API and the
//! advertising API over a demo world's warehouse, with fault rules from a file.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use pp_sandbox::faults::FaultFile;
use pp_sandbox::{Sim, SimConfig};
use tokio::net::TcpListener;

/// `sim` flags.
#[derive(Args, Debug)]
pub struct SimArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8081")]
    listen: SocketAddr,
    /// The world: a `warehouse.sqlite`, or the folder `world generate` wrote it to.
    #[arg(long)]
    world: PathBuf,
    /// Where the sandbox keeps its state and `sandbox-credentials.json`
    /// (default: `sandbox/` beside the warehouse).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The URL clients reach the sandbox at (default: http://<bound address>).
    #[arg(long)]
    public_url: Option<String>,
    /// A TOML file of fault rules: `seed = N` and `[[rules]]` tables (docs/sandbox.md).
    #[arg(long)]
    faults: Option<PathBuf>,
    /// Milliseconds from a report's creation to its end state.
    #[arg(long, default_value_t = 1500)]
    report_ms: u64,
    /// Lifetime of LWA access tokens, in seconds.
    #[arg(long, default_value_t = 3600)]
    token_ttl: u64,
    /// Do not enforce the usage plans (for load tests).
    #[arg(long)]
    no_rate_limits: bool,
    /// A redirect URI registered for the app: its consent pages send browsers back only to
    /// these (a gateway's `<public URL>/console/connections/callback`). Repeatable.
    #[arg(long = "redirect-uri")]
    redirect_uris: Vec<String>,
    /// Move the world this many days forward before serving (as `POST /__sandbox/world
    /// {"days": N}` does while it runs): the same world at a later today, kept for later starts.
    #[arg(long, value_name = "DAYS")]
    advance: Option<i64>,
}

/// The warehouse file `world` names.
pub fn warehouse_path(world: &std::path::Path) -> PathBuf {
    if world.is_dir() {
        world.join("warehouse.sqlite")
    } else {
        world.to_path_buf()
    }
}

pub fn run(args: SimArgs) -> Result<(), String> {
    let _log = crate::logging::init();
    let warehouse = warehouse_path(&args.world);
    if !warehouse.exists() {
        return Err(format!(
            "no world at {}: make one with `partner-platform world generate --out <dir>`",
            warehouse.display()
        ));
    }
    let faults = match &args.faults {
        None => None,
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            Some(
                toml::from_str::<FaultFile>(&text)
                    .map_err(|e| format!("fault file {}: {e}", p.display()))?,
            )
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let listener = TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let url = args
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"));
        let data_dir = args.data_dir.clone().unwrap_or_else(|| {
            warehouse
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .join("sandbox")
        });
        let mut cfg = SimConfig::new(warehouse.clone(), data_dir.clone(), &url);
        cfg.report_ms = args.report_ms;
        cfg.access_token_ttl_secs = args.token_ttl;
        cfg.rate_limits = !args.no_rate_limits;
        cfg.redirect_uris = args.redirect_uris.clone();
        if let Some(seed) = faults.as_ref().and_then(|f| f.seed) {
            cfg.seed = seed;
        }
        let sim = Sim::open(cfg).map_err(|e| e.message)?;
        if let Some(days) = args.advance {
            let now = pp_sandbox::advance::advance(&sim, days).map_err(|e| e.message)?;
            println!("the world moved {days} day(s) forward: {now}");
        }
        if let Some(f) = faults {
            sim.faults.add(f.rules)?;
        }
        let sim = Arc::new(sim);
        print_banner(&sim, &data_dir);
        pp_sandbox::serve(listener, sim, crate::serve::shutdown_signal())
            .await
            .map_err(|e| format!("sandbox stopped: {e}"))
    })
}

/// Tells a person how to call the sandbox as the provider.
pub fn print_banner(sim: &Sim, data_dir: &std::path::Path) {
    let creds = sim.credentials().unwrap_or_default();
    let first = &creds["merchants"][0];
    println!(
        "\nSandbox provider is up at {url}\n\n  LWA token URL  {url}/auth/o2/token\n  client_id      {id}\n  credentials    {dir}/sandbox-credentials.json (the client secret and a refresh token per merchant)\n  control        {url}/__sandbox/faults, /__sandbox/calls, /__sandbox/world (Authorization: Bearer <client secret>)\n  consent pages  {url}/apps/authorize/consent (application id {app}) and {url}/ap/oa\n\nTry it:\n\n  curl -s {url}/auth/o2/token -d grant_type=refresh_token -d client_id={id} \\\n       -d client_secret=\"$SECRET\" --data-urlencode refresh_token=\"$REFRESH\"   # merchant {merchant}\n  curl -s -H \"x-amz-access-token: $ACCESS\" {url}/sellers/v1/marketplaceParticipations\n",
        url = creds["url"].as_str().unwrap_or_default(),
        id = creds["client_id"].as_str().unwrap_or_default(),
        dir = data_dir.display(),
        app = creds["application_id"].as_str().unwrap_or_default(),
        merchant = first["merchant"].as_str().unwrap_or_default(),
    );
}
