//! The dev server's first impression: a demo tenant with the `small` demo world, a service
//! credential and an admin who can sign in to the console, created on first start and reused
//! after. The credential and the admin's password are written to
//! `<data-dir>/dev-credential.json` (and `dev.env` for shells), readable by the owner only.
//!
//! Beside it, a second tenant, `synced`, whose warehouse is managed: its sync starts by itself
//! on the first start and fills it from the same sandbox accounts, last month first
//! (`source <data-dir>/synced.env && partner-platform sync run --wait` waits for it,
//! docs/warehouse-sync.md). Its credential is in `synced-credential.json` and `synced.env`.

use std::path::Path;

use chrono::{NaiveDate, Utc};
use pp_core::{Result, Scope, TenantId};
use pp_store::Store;
use pp_world::{Scale, WorldSpec};
use serde::{Deserialize, Serialize};

/// The demo tenant's id.
pub const DEMO_TENANT: &str = "demo";
/// The tenant whose managed warehouse the sync fills from the dev sandbox.
pub const SYNCED_TENANT: &str = "synced";
/// The demo tenant's admin, who signs in to the console.
pub const DEMO_ADMIN: &str = "admin@demo.example";
const DEMO_SEED: u64 = 20_261_122;

/// What `dev-credential.json` holds.
#[derive(Serialize, Deserialize)]
pub struct DevCredential {
    pub tenant: String,
    pub client_id: String,
    pub client_secret: String,
    pub scopes: Vec<String>,
    pub token_url: String,
    pub base_url: String,
    /// The demo admin who signs in to the console.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console: Option<DevConsole>,
    /// The sandbox provider the dev server started: its URL, the LWA app's client id and
    /// secret, and a refresh token per demo merchant and advertising account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<serde_json::Value>,
}

/// The console's address and the demo admin's sign-in.
#[derive(Clone, Serialize, Deserialize)]
pub struct DevConsole {
    pub url: String,
    pub email: String,
    pub password: String,
}

/// The demo admin's password: the saved one while it still signs in, else a new one (the
/// admin is created on first start, and reset when the saved password no longer works).
async fn console_password(store: &Store, tenant: &TenantId, saved: Option<&str>) -> Result<String> {
    if let Some(p) = saved
        && pp_auth::sign_in(store, DEMO_ADMIN, p).await?.is_some()
    {
        return Ok(p.to_owned());
    }
    let made = if store.people().by_email(DEMO_ADMIN).await?.is_some() {
        pp_auth::reset_password(store, DEMO_ADMIN, None).await?
    } else {
        let details = pp_auth::PersonDetails {
            email: DEMO_ADMIN,
            display_name: "Demo admin",
            role: pp_auth::Role::Admin,
        };
        pp_auth::create_person(store, tenant, &details, None).await?
    };
    made.generated_password
        .ok_or_else(|| pp_core::Error::internal("no password was chosen for the demo admin"))
}

/// What bootstrapping found or made.
pub struct Boot {
    pub cred: DevCredential,
    pub first_start: bool,
    pub warehouse: String,
}

/// Ensures the demo tenant, its warehouse and a live credential exist; rewrites the
/// credential files with the current base URL.
pub async fn bootstrap(store: &Store, base_url: &str, today: Option<NaiveDate>) -> Result<Boot> {
    let tenant = TenantId::parse(DEMO_TENANT)?;
    let path = store.default_warehouse_path(&tenant);
    let first_start = store.tenants().get(&tenant).await?.is_none();
    if first_start {
        let warehouse = format!("sqlite:{}", absolute(&path).display());
        store
            .tenants()
            .create(&tenant, "Demo tenant", &warehouse)
            .await?;
    }
    if !path.exists() {
        let spec = WorldSpec::new(
            DEMO_SEED,
            Scale::Small,
            today.unwrap_or_else(|| Utc::now().date_naive()),
        );
        let dir = path.parent().unwrap_or(store.data_dir());
        pp_world::generate_sqlite(&spec, dir).map_err(pp_core::Error::internal)?;
    }
    let truth = path.with_file_name("ground-truth.json");
    if truth.exists() {
        pp_brand::seed::from_world(store, DEMO_TENANT, &path, &truth).await?;
    }
    let world_dir = path.parent().unwrap_or(store.data_dir());
    pp_profit::seed::from_world(store, &tenant, world_dir).await?;
    let file = store.data_dir().join("dev-credential.json");
    let saved: Option<DevCredential> = std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let saved_password = saved.and_then(|c| c.console).map(|c| c.password);
    let password = console_password(store, &tenant, saved_password.as_deref()).await?;
    let (client_id, client_secret, scopes) = match reusable(store, &file).await {
        Some(c) => (c.client_id, c.client_secret, c.scopes),
        None => {
            // the default bundle, and intelligence:read and costs:write, which an administrator
            // grants (docs/concepts/scopes.md): the dev server is the demo tenant's administrator
            let mut scopes = pp_core::scope::DEFAULT_SERVICE_SCOPES.to_vec();
            scopes.push(pp_core::Scope::IntelligenceRead);
            scopes.push(pp_core::Scope::CostsWrite);
            let scopes = pp_core::ScopeSet::from_scopes(&scopes);
            let c = pp_auth::create_credential(store, &tenant, Some(scopes), "dev").await?;
            (
                c.row.client_id,
                c.client_secret,
                c.row.scopes.split(' ').map(str::to_owned).collect(),
            )
        }
    };
    let cred = DevCredential {
        tenant: DEMO_TENANT.into(),
        client_id,
        client_secret,
        scopes,
        token_url: format!("{base_url}/oauth/token"),
        base_url: base_url.to_owned(),
        console: Some(DevConsole {
            url: format!("{base_url}/console"),
            email: DEMO_ADMIN.into(),
            password,
        }),
        sandbox: None,
    };
    write_files(store.data_dir(), &cred)?;
    Ok(Boot {
        cred,
        first_start,
        warehouse: path.display().to_string(),
    })
}

fn absolute(p: &Path) -> std::path::PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The saved credential, if it still authenticates.
async fn reusable(store: &Store, file: &Path) -> Option<DevCredential> {
    let c: DevCredential = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    let key = pp_auth::SecretKey::of(store).await.ok()?;
    pp_auth::authenticate_client(store, &key, &c.client_id, &c.client_secret)
        .await
        .ok()?;
    Some(c)
}

fn write_private(path: &Path, contents: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents).map_err(pp_core::Error::internal)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))
            .map_err(pp_core::Error::internal)?;
    }
    std::fs::rename(&tmp, path).map_err(pp_core::Error::internal)
}

/// Writes `dev-credential.json` and `dev.env` (owner-only).
pub fn write_files(dir: &Path, c: &DevCredential) -> Result<()> {
    write_named(dir, "dev", c)
}

/// Writes `<name>-credential.json` and `<name>.env` (owner-only).
fn write_named(dir: &Path, name: &str, c: &DevCredential) -> Result<()> {
    let json = serde_json::to_vec_pretty(c).map_err(pp_core::Error::internal)?;
    write_private(&dir.join(format!("{name}-credential.json")), &json)?;
    let mut env = format!(
        "# Source this file: `source {}/{name}.env`\nexport PP_BASE_URL={}\nexport PP_TOKEN_URL={}\nexport PP_TENANT={}\nexport PP_CLIENT_ID={}\nexport PP_CLIENT_SECRET={}\n",
        dir.display(),
        c.base_url,
        c.token_url,
        c.tenant,
        c.client_id,
        c.client_secret
    );
    if let Some(console) = &c.console {
        env.push_str(&format!(
            "export PP_CONSOLE_URL={}\nexport PP_CONSOLE_EMAIL={}\nexport PP_CONSOLE_PASSWORD='{}'\n",
            console.url, console.email, console.password
        ));
    }
    if let Some(s) = &c.sandbox {
        let text = |k: &str| s[k].as_str().unwrap_or_default().to_owned();
        env.push_str(&format!(
            "export PP_SANDBOX_URL={}\nexport PP_SANDBOX_CLIENT_ID={}\nexport PP_SANDBOX_CLIENT_SECRET='{}'\nexport PP_SANDBOX_REFRESH_TOKEN='{}'\n",
            text("url"),
            text("client_id"),
            text("client_secret"),
            s["merchants"][0]["refresh_token"].as_str().unwrap_or_default(),
        ));
    }
    write_private(&dir.join(format!("{name}.env")), env.as_bytes())
}

/// Ensures the `synced` tenant: its managed warehouse (the schema, no rows until its sync
/// runs) and a credential with the read scopes and `sync:write`, written to `synced-credential.json` and
/// `synced.env`.
pub async fn bootstrap_synced(store: &Store, base_url: &str) -> Result<()> {
    let tenant = TenantId::parse(SYNCED_TENANT)?;
    let path = absolute(&store.default_warehouse_path(&tenant));
    let locator = format!("sqlite:{}", path.display());
    if store.tenants().get(&tenant).await?.is_none() {
        store
            .tenants()
            .create(&tenant, "Synced from the sandbox", &locator)
            .await?;
    }
    pp_sync::manage(store, &tenant, &locator).await?;
    let file = store.data_dir().join("synced-credential.json");
    // the read bundle and sync:write: the README's `sync run --wait` starts the sync
    let reused = reusable(store, &file)
        .await
        .filter(|c| c.scopes.iter().any(|s| s == Scope::SyncWrite.as_str()));
    let cred = match reused {
        Some(c) => c,
        None => {
            let mut scopes = pp_core::scope::DEFAULT_SERVICE_SCOPES.to_vec();
            scopes.push(Scope::SyncWrite);
            let scopes = pp_core::ScopeSet::from_scopes(&scopes);
            let c = pp_auth::create_credential(store, &tenant, Some(scopes), "dev").await?;
            DevCredential {
                tenant: SYNCED_TENANT.into(),
                client_id: c.row.client_id,
                client_secret: c.client_secret,
                scopes: c.row.scopes.split(' ').map(str::to_owned).collect(),
                token_url: String::new(),
                base_url: String::new(),
                console: None,
                sandbox: None,
            }
        }
    };
    let cred = DevCredential {
        token_url: format!("{base_url}/oauth/token"),
        base_url: base_url.to_owned(),
        ..cred
    };
    write_named(store.data_dir(), SYNCED_TENANT, &cred)
}

/// Tells a newcomer what is running and what to type next.
pub fn print_banner(b: &Boot, data_dir: &Path) {
    let d = data_dir.display();
    let c = &b.cred;
    println!(
        "\nPartner Platform dev server is up at {base}\n\
         \n  tenant         {tenant}{fresh}\n  warehouse      {wh}\n                 (demo world: sellers in US, CA and MX and a vendor, three years of daily data)\n  client_id      {id}\n  client_secret  {secret}\n  scopes         {scopes}\n  saved in       {d}/dev-credential.json and {d}/dev.env\n  MCP server     {base}/mcp (Streamable HTTP; legacy SSE at {base}/mcp/sse), same bearer token\n  console        {base}/console  (sign in as {admin} with password {password};\n                 Accounts connects marketplace accounts at the sandbox's consent pages)\n  sandbox        {sandbox} (the provider's LWA, selling-side and advertising APIs over the demo world;\n                 its app secret and refresh tokens are under \"sandbox\" in dev-credential.json)\n  synced tenant  a managed warehouse its sync fills from the sandbox, started by itself (last month\n                 first): source {d}/synced.env; partner-platform sync status (docs/warehouse-sync.md)\n\
         \nTry it from another terminal:\n\
         \n  source {d}/dev.env\n  TOKEN=$(curl -s -u \"$PP_CLIENT_ID:$PP_CLIENT_SECRET\" -d grant_type=client_credentials \"$PP_TOKEN_URL\" | sed -E 's/.*\"access_token\":\"([^\"]+)\".*/\\1/')\n  curl -s -H \"Authorization: Bearer $TOKEN\" \"$PP_BASE_URL/v1/me\"\n  curl -s -H \"Authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\\n       -d '{{\"sql\":\"SELECT ID, MarketplaceSellerID, Marketplace FROM seller\"}}' \"$PP_BASE_URL/api/query\"\n  curl -s -H \"Authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\\n       -d '{{\"operation\":\"sellers.get_marketplace_participations\",\"legacySellerId\":1}}' \"$PP_BASE_URL/api/marketplace/spapi/call\"\n\
         \nMore in README.md. Stop with Ctrl-C; the next start reuses this data and credential.\n",
        base = c.base_url,
        tenant = c.tenant,
        admin = DEMO_ADMIN,
        password = c
            .console
            .as_ref()
            .map(|x| x.password.as_str())
            .unwrap_or("(see dev-credential.json)"),
        fresh = if b.first_start {
            " (created just now)"
        } else {
            ""
        },
        wh = b.warehouse,
        id = c.client_id,
        secret = c.client_secret,
        scopes = c.scopes.join(" "),
        sandbox = c
            .sandbox
            .as_ref()
            .and_then(|s| s["url"].as_str())
            .unwrap_or("not started"),
    );
}

/// Starts the sandbox provider over the demo world on the port after the gateway's (or any
/// free one), keeping its state in `<data-dir>/sandbox`; returns what the credential file says
/// about it. Its consent pages send browsers back to `callback`, the gateway's.
pub async fn start_sandbox(
    data_dir: &Path,
    warehouse: &Path,
    gateway: std::net::SocketAddr,
    callback: &str,
) -> std::result::Result<serde_json::Value, String> {
    let mut want = gateway;
    if gateway.port() != 0 {
        want.set_port(gateway.port().wrapping_add(1));
    }
    let listener = match tokio::net::TcpListener::bind(want).await {
        Ok(l) => l,
        Err(_) => tokio::net::TcpListener::bind((gateway.ip(), 0))
            .await
            .map_err(|e| format!("cannot start the sandbox: {e}"))?,
    };
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut cfg = pp_sandbox::SimConfig::new(
        warehouse.to_path_buf(),
        data_dir.join("sandbox"),
        &format!("http://{addr}"),
    );
    cfg.redirect_uris = vec![callback.to_owned()];
    let sim = std::sync::Arc::new(pp_sandbox::Sim::open(cfg).map_err(|e| e.message)?);
    let creds = sim.credentials().map_err(|e| e.message)?;
    tokio::spawn(pp_sandbox::serve(listener, sim, std::future::pending()));
    Ok(creds)
}

/// The gateway's upstream configuration for the sandbox `creds` describe.
pub fn sandbox_upstream(creds: &serde_json::Value) -> pp_marketplace::Upstream {
    let text = |k: &str| creds[k].as_str().unwrap_or_default().to_owned();
    pp_marketplace::Upstream {
        kind: "sandbox".into(),
        token_url: text("token_url"),
        spapi_url: text("url"),
        ads_url: text("url"),
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        ads_token_urls: pp_marketplace::Regional::same(&text("token_url")),
        consent: pp_marketplace::Consent {
            application_id: Some(text("application_id")),
            draft: false,
            seller_urls: pp_marketplace::Regional::same(&text("seller_consent_url")),
            ads_urls: pp_marketplace::Regional::same(&text("ads_authorize_url")),
        },
    }
}

/// Points the stream consumer at the sandbox's own SQS (its endpoint and key in `creds`).
pub fn sandbox_stream(settings: &mut crate::config::Settings, creds: &serde_json::Value) {
    let text = |k: &str| creds["sqs"][k].as_str().map(str::to_owned);
    settings.stream_sqs_endpoint = text("endpoint");
    settings.stream_sqs_region = text("region");
    settings.stream_sqs_access_key_id = text("access_key_id");
    settings.stream_sqs_secret_access_key = text("secret_access_key");
}

/// The dev server's secret key (sealing refresh tokens), made once in `<data-dir>/secret.key`.
pub fn secret_key(data_dir: &Path) -> Result<pp_marketplace::Sealer> {
    let file = data_dir.join("secret.key");
    let hex = match std::fs::read_to_string(&file) {
        Ok(h) => h,
        Err(_) => {
            let h = pp_marketplace::Sealer::generate_hex()?;
            write_private(&file, h.as_bytes())?;
            h
        }
    };
    pp_marketplace::Sealer::from_hex(&hex)
}

/// Connects every demo merchant's selling-side and advertising grants to the sandbox — those
/// not connected yet: a disconnect, or a connect through the consent pages, outlives a
/// restart — and enables listing writes for the selling-side ones (the sandbox's listings are
/// demo data).
pub async fn connect_demo(
    store: &Store,
    sealer: &pp_marketplace::Sealer,
    creds: &serde_json::Value,
) -> Result<()> {
    for tenant in [DEMO_TENANT, SYNCED_TENANT] {
        connect(store, sealer, creds, &TenantId::parse(tenant)?).await?;
    }
    Ok(())
}

/// Connects the sandbox's grants for `tenant` (those not connected yet); a managed tenant's
/// sync takes new ones in by itself (the workers run its adoption, last month first).
async fn connect(
    store: &Store,
    sealer: &pp_marketplace::Sealer,
    creds: &serde_json::Value,
    tenant: &TenantId,
) -> Result<()> {
    let tenant = tenant.clone();
    let mut connected = false;
    for (list, key, kind) in [
        ("merchants", "merchant", "seller"),
        ("advertising", "account", "ads"),
    ] {
        for m in creds[list].as_array().cloned().unwrap_or_default() {
            let merchant = m[key].as_str().unwrap_or_default();
            if store
                .connections()
                .get(&tenant, kind, merchant)
                .await?
                .is_some()
            {
                continue;
            }
            let reach_key = if kind == "seller" {
                "marketplaces"
            } else {
                "profiles"
            };
            let reach: Vec<String> = m[reach_key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            let grant = pp_marketplace::connections::Grant {
                kind,
                merchant,
                region: "na",
                refresh_token: m["refresh_token"].as_str().unwrap_or_default(),
                status: "active",
                connected_by: "dev",
                reach: &reach,
            };
            pp_marketplace::connections::connect(store, sealer, &tenant, &grant).await?;
            connected = true;
            // the sandbox's listings are the demo's to edit: listing writes are on for them
            if kind == "seller" {
                store
                    .listing_writes()
                    .enable(&tenant, grant.merchant, "dev")
                    .await?;
            }
        }
    }
    if connected {
        // (the demo tenant's warehouse is generated, not managed: nothing is queued for it)
        store.sync().request_adopt(&tenant).await?;
    }
    Ok(())
}
