//! `partner-platform server`: resolve configuration, open the store, (in dev mode) prepare the
//! demo tenant, bind, and serve until Ctrl-C or SIGTERM.

use std::sync::Arc;

use pp_server::AppState;
use pp_store::Store;
use tokio::net::TcpListener;

use crate::config::{Config, Given, ServerArgs};
use crate::{dev, logging};

pub fn run(args: ServerArgs, given: Given) -> Result<(), String> {
    let mut cfg = Config::resolve(&args, &given)?;
    let _log = logging::init();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let store = Store::connect(&cfg.state_url, &cfg.data_dir)
            .await
            .map_err(|e| describe(&e))?;
        let listener = TcpListener::bind(cfg.settings.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", cfg.settings.listen))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let public_url = cfg
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"));
        let mut upstream = None;
        // where a stream subscription's confirmation may point besides the provider's SNS
        let mut confirm_origins = Vec::new();
        if args.dev {
            let mut boot = dev::bootstrap(&store, &public_url, args.today)
                .await
                .map_err(|e| describe(&e))?;
            let callback = format!("{public_url}{}", pp_server::CONNECT_CALLBACK);
            let sandbox = dev::start_sandbox(
                &cfg.data_dir,
                std::path::Path::new(&boot.warehouse),
                addr,
                &callback,
            )
            .await?;
            dev::bootstrap_synced(&store, &public_url)
                .await
                .map_err(|e| describe(&e))?;
            let sealer = dev::secret_key(&cfg.data_dir).map_err(|e| describe(&e))?;
            dev::connect_demo(&store, &sealer, &sandbox)
                .await
                .map_err(|e| describe(&e))?;
            upstream = Some((dev::sandbox_upstream(&sandbox), sealer));
            if cfg.settings.stream_sqs_endpoint.is_none() {
                dev::sandbox_stream(&mut cfg.settings, &sandbox);
                confirm_origins.push(sandbox["url"].as_str().unwrap_or_default().to_owned());
            }
            boot.cred.sandbox = Some(sandbox);
            dev::write_files(&cfg.data_dir, &boot.cred).map_err(|e| describe(&e))?;
            dev::print_banner(&boot, &cfg.data_dir);
        } else {
            println!(
                "Partner Platform listening on {addr} (public URL {public_url}, state {}, data in {})",
                cfg.state_url.redacted(),
                cfg.data_dir.display()
            );
        }
        let mut state = AppState::bounded(store, &public_url, cfg.settings.limits.clone())
            .await
            .map_err(|e| describe(&e))?
            .with_mcp_allowed(
                &cfg.settings.mcp_allowed_hosts,
                &cfg.settings.mcp_allowed_origins,
            )
            .with_jobs(cfg.jobs())
            .with_registration_token(cfg.settings.registration_token.clone());
        if upstream.is_none() {
            upstream = cfg.upstream().map_err(|e| describe(&e))?;
        }
        let sealer = match &upstream {
            Some((_, sealer)) => Some(sealer.clone()),
            None => cfg.sealer().map_err(|e| describe(&e))?,
        };
        state = state
            .with_events(cfg.events(args.dev), sealer)
            .map_err(|e| describe(&e))?;
        if let Some((u, sealer)) = upstream {
            state = state
                .with_marketplace(u, cfg.policy(), sealer)
                .map_err(|e| describe(&e))?;
        }
        if let Some(stream) = cfg.stream(&confirm_origins).map_err(|e| describe(&e))? {
            state = state.with_stream(stream);
        }
        if args.dev {
            // the monitors look at the demo world once it is up (a job: the workers run it)
            let demo = pp_core::TenantId::parse(dev::DEMO_TENANT).map_err(|e| describe(&e))?;
            state
                .intelligence
                .monitors()
                .queue(&demo, None)
                .await
                .map_err(|e| describe(&e))?;
        }
        let state = Arc::new(state);
        let workers = pp_server::Workers::spawn(state.clone()).map_err(|e| describe(&e))?;
        let served = pp_server::serve(listener, state, shutdown_signal()).await;
        workers.stop();
        served.map_err(|e| format!("server stopped: {e}"))
    })
}

/// Text for a startup failure, including the logged-only cause (this is the operator's terminal).
pub fn describe(e: &pp_core::Error) -> String {
    match e.chain() {
        c if c.is_empty() => e.message().to_owned(),
        c => format!("{} ({c})", e.message()),
    }
}

pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
