//! `context list|get|sync|lifecycle`: brand context documents (`context:read`; writes also
//! `context:write`). `sync` writes a folder of documents — `<type>.md` for overview,
//! positioning, audience, products, competitors and guidelines, and `corpus/<name>.md` —
//! each against the revision the manifest shows, so a document someone changed meanwhile is
//! refused (`conflict`, exit 15) rather than overwritten.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Value, json};

use super::{Common, Failure, exit, http::Api};
use super::{args, output};

/// The document types a folder may hold as `<type>.md` (every type but `corpus`, which is a
/// folder of named documents).
fn single_types() -> impl Iterator<Item = &'static str> {
    pp_brand::docs::TYPES
        .iter()
        .copied()
        .filter(|t| *t != "corpus")
}

#[derive(Subcommand)]
pub enum ContextCommand {
    /// Brands with their lifecycle and documents.
    List {
        /// `active` leaves retired brands out.
        #[arg(long, default_value = "all")]
        lifecycle: String,
        #[command(flatten)]
        common: Common,
    },
    /// One document's content.
    Get {
        #[arg(long)]
        brand: String,
        /// overview, positioning, audience, products, competitors, guidelines or corpus.
        #[arg(long = "type")]
        kind: String,
        /// Corpus documents only.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Write a folder of documents to a brand (`<type>.md`, `corpus/<name>.md`).
    Sync {
        /// The folder.
        folder: PathBuf,
        #[arg(long)]
        brand: String,
        #[command(flatten)]
        common: Common,
    },
    /// Retire or restore a brand.
    Lifecycle {
        #[arg(long)]
        brand: String,
        /// retire or restore.
        #[arg(long)]
        action: String,
        /// client_left, duplicate, superseded or other.
        #[arg(long)]
        reason_code: Option<String>,
        #[arg(long)]
        note: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

impl ContextCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::List { common, .. }
            | Self::Get { common, .. }
            | Self::Sync { common, .. }
            | Self::Lifecycle { common, .. } => common,
        }
    }
}

/// The documents of a folder: (type, corpus name, file).
fn documents(folder: &Path) -> Result<Vec<(String, Option<String>, PathBuf)>, Failure> {
    let unreadable = |e: std::io::Error| {
        Failure::local(
            exit::OTHER,
            format!("cannot read {}: {e}", folder.display()),
        )
    };
    let mut docs = Vec::new();
    for t in single_types() {
        let f = folder.join(format!("{t}.md"));
        if f.is_file() {
            docs.push((t.to_owned(), None, f));
        }
    }
    let corpus = folder.join("corpus");
    if corpus.is_dir() {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&corpus)
            .map_err(unreadable)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        names.sort();
        for p in names {
            let name = p
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_owned();
            docs.push(("corpus".into(), Some(name), p));
        }
    }
    if docs.is_empty() {
        return Err(Failure::local(
            exit::USAGE,
            format!(
                "{} holds no documents (<type>.md or corpus/<name>.md)",
                folder.display()
            ),
        ));
    }
    Ok(docs)
}

/// The revision the manifest shows for a brand's document (0 when there is none).
fn revision_of(manifest: &Value, brand: &str, kind: &str, name: Option<&str>) -> i64 {
    manifest["brands"]
        .as_array()
        .and_then(|bs| bs.iter().find(|b| b["brand_slug"] == brand))
        .and_then(|b| b["docs"].as_array())
        .and_then(|ds| {
            ds.iter()
                .find(|d| d["type"] == kind && d["name"].as_str() == name)
        })
        .and_then(|d| d["revision"].as_i64())
        .unwrap_or(0)
}

async fn sync(folder: &Path, brand: &str, c: &Common) -> Result<(), Failure> {
    let docs = documents(folder)?;
    let mut api = Api::new(&c.profile)?;
    let manifest = api.get("/api/context/manifest").await?;
    let mut rows = Vec::new();
    for (kind, name, file) in docs {
        let content = std::fs::read_to_string(&file).map_err(|e| {
            Failure::local(exit::OTHER, format!("cannot read {}: {e}", file.display()))
        })?;
        let base = revision_of(&manifest, brand, &kind, name.as_deref());
        let path = match &name {
            Some(n) => format!(
                "/api/context/docs/{}/corpus/{}",
                args::segment(brand),
                args::segment(n)
            ),
            None => format!(
                "/api/context/docs/{}/{}",
                args::segment(brand),
                args::segment(&kind)
            ),
        };
        let answer = api
            .put(&path, &json!({ "content": content, "base_revision": base }))
            .await?;
        rows.push(json!({ "type": kind, "name": name, "revision": answer["revision"], "changed": answer["changed"] }));
    }
    if c.json {
        output::json(&json!({ "brand": brand, "documents": rows }));
    } else {
        let cols = ["type", "name", "revision", "changed"];
        println!("{}", output::table(&cols, &rows));
    }
    Ok(())
}

pub async fn run(cmd: ContextCommand, c: &Common) -> Result<(), Failure> {
    match cmd {
        ContextCommand::List { lifecycle, .. } => {
            let answer = Api::new(&c.profile)?
                .get(&format!(
                    "/api/context/manifest?lifecycle={}",
                    args::segment(&lifecycle)
                ))
                .await?;
            if c.json {
                output::json(&answer);
                return Ok(());
            }
            let rows: Vec<Value> = answer["brands"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|b| {
                    let docs: Vec<String> = b["docs"]
                        .as_array()
                        .map(|d| d.iter().map(|x| x["name"].as_str().or(x["type"].as_str()).unwrap_or("").to_owned()).collect())
                        .unwrap_or_default();
                    json!({ "brand": b["brand_slug"], "name": b["name"], "state": b["lifecycle"]["state"], "documents": docs.join(", ") })
                })
                .collect();
            let cols = ["brand", "name", "state", "documents"];
            println!("{}", output::table(&cols, &rows));
        }
        ContextCommand::Get {
            brand, kind, name, ..
        } => {
            let mut path = format!(
                "/v1/context/doc?brand={}&type={}",
                args::segment(&brand),
                args::segment(&kind)
            );
            if let Some(n) = &name {
                path.push_str(&format!("&name={}", args::segment(n)));
            }
            let answer = Api::new(&c.profile)?.get(&path).await?;
            if c.json {
                output::json(&answer);
            } else {
                println!("{}", answer["content"].as_str().unwrap_or_default());
            }
        }
        ContextCommand::Sync { folder, brand, .. } => sync(&folder, &brand, c).await?,
        ContextCommand::Lifecycle {
            brand,
            action,
            reason_code,
            note,
            ..
        } => {
            let mut body = json!({ "brand_slug": brand, "action": action });
            if let Some(r) = reason_code {
                body["reason_code"] = json!(r);
            }
            if let Some(n) = note {
                body["note"] = json!(n);
            }
            output::json(
                &Api::new(&c.profile)?
                    .post("/api/context/lifecycle", &body)
                    .await?,
            );
        }
    }
    Ok(())
}
