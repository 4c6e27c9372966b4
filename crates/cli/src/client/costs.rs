//! `costs …` and `rates …`: profit's tenant data (docs/profit.md). `costs import FILE` reads a
//! cost file (`pp_profit::costs_csv`: checked here line by line before anything is sent) and
//! sends it as batches of at most 5,000 periods, each one audited transaction; `costs list`
//! prints the periods (`--csv` as a cost file `import` takes back); `costs missing` the SKUs
//! a merchant sold without a cost; `costs changes` the audit log; `costs currency [CODE]` the
//! reporting currency. `rates import FILE` reads a published reference-rate file (the ECB's
//! daily or historical CSV, `pp_profit::ecb`) and `rates list` prints what is held.

use clap::{Args, Subcommand};
use pp_profit::{costs::MAX_BATCH, rates::MAX_RATES};
use serde_json::{Value, json};

use super::args::with_query;
use super::{Common, Failure, exit, http::Api, output};

#[derive(Args)]
pub struct Merchant {
    /// The merchant token.
    #[arg(long)]
    pub seller_id: String,
    /// The marketplace id.
    #[arg(long)]
    pub marketplace_id: String,
}

#[derive(Subcommand)]
pub enum CostsCommand {
    /// The landed-cost periods (`--csv`: as a cost file).
    List {
        #[arg(long)]
        seller_id: Option<String>,
        #[arg(long)]
        marketplace_id: Option<String>,
        #[arg(long)]
        sku: Option<String>,
        /// Print a cost file (the columns `costs import` reads).
        #[arg(long)]
        csv: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Set cost periods from a cost file (CSV: seller_id, marketplace_id, sku, valid_from,
    /// currency, unit_cost, freight, duties).
    Import {
        /// The cost file.
        file: std::path::PathBuf,
        /// One line kept in the audit log with every change.
        #[arg(long)]
        reason: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// The SKUs a merchant sold on days no cost period covers.
    Missing {
        #[command(flatten)]
        merchant: Merchant,
        #[arg(long)]
        from: Option<String>,
        #[arg(long)]
        to: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// The audit log of costs, rates and the reporting currency, newest first.
    Changes {
        #[arg(long, default_value_t = 50)]
        limit: u32,
        #[command(flatten)]
        common: Common,
    },
    /// The reporting currency; given a code, set it.
    Currency {
        code: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Subcommand)]
pub enum RatesCommand {
    /// Import a published reference-rate file (the ECB's daily or historical CSV).
    Import {
        file: std::path::PathBuf,
        /// Only these currencies (repeat, or comma-separated); default every column.
        #[arg(long = "currency", value_delimiter = ',')]
        currencies: Vec<String>,
        /// Where the rates come from, for the audit log (default: the file's name).
        #[arg(long)]
        source: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// The rates held in a window, and each currency's days.
    List {
        #[arg(long)]
        currency: Option<String>,
        #[arg(long)]
        from: Option<String>,
        #[arg(long)]
        to: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

impl CostsCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::List { common, .. }
            | Self::Import { common, .. }
            | Self::Missing { common, .. }
            | Self::Changes { common, .. }
            | Self::Currency { common, .. } => common,
        }
    }
}

impl RatesCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Import { common, .. } | Self::List { common, .. } => common,
        }
    }
}

fn read_file(path: &std::path::Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::local(exit::USAGE, format!("{}: {e}", path.display())))
}

fn invalid(e: pp_core::Error) -> Failure {
    Failure::local(exit::INVALID, e.message().to_owned())
}

fn opt<'a>(pairs: &mut Vec<(&'a str, &'a str)>, name: &'a str, v: &'a Option<String>) {
    if let Some(v) = v {
        pairs.push((name, v));
    }
}

pub async fn costs(cmd: CostsCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    match cmd {
        CostsCommand::List {
            seller_id,
            marketplace_id,
            sku,
            csv,
            ..
        } => {
            let mut q = Vec::new();
            opt(&mut q, "sellerId", &seller_id);
            opt(&mut q, "marketplaceId", &marketplace_id);
            opt(&mut q, "sku", &sku);
            let answer = api.get(&with_query("/api/costs", &q)).await?;
            let rows = answer["periods"].as_array().cloned().unwrap_or_default();
            if c.json {
                output::json(&answer);
            } else if csv {
                let rows: Vec<Value> = rows.iter().map(file_row).collect();
                println!("{}", output::csv(&pp_profit::costs_csv::COLUMNS, &rows));
            } else {
                let columns = [
                    "sellerId",
                    "marketplaceId",
                    "sku",
                    "validFrom",
                    "validThrough",
                    "currency",
                    "unitCost",
                    "freight",
                    "duties",
                    "updatedBy",
                ];
                print!("{}", output::table(&columns, &rows));
            }
            Ok(())
        }
        CostsCommand::Import { file, reason, .. } => {
            let periods = pp_profit::costs_csv::read(&read_file(&file)?).map_err(invalid)?;
            let total = periods.len();
            let mut sums = [0_u64; 4];
            for (n, chunk) in periods.chunks(MAX_BATCH).enumerate() {
                let body = json!({
                    "periods": chunk.iter().map(period_json).collect::<Vec<_>>(),
                    "reason": reason,
                });
                let answer = api.post("/api/costs", &body).await.map_err(|mut f| {
                    if n > 0 {
                        f.message = format!(
                            "{} (the first {} of {total} periods were set; this batch and the rest were not)",
                            f.message,
                            n * MAX_BATCH
                        );
                    }
                    f
                })?;
                for (s, k) in sums
                    .iter_mut()
                    .zip(["added", "changed", "removed", "unchanged"])
                {
                    *s += answer[k].as_u64().unwrap_or(0);
                }
                if !c.quiet && answer["warehouseCopy"]["failed"].is_string() {
                    eprintln!(
                        "warning: the warehouse copy failed: {}",
                        answer["warehouseCopy"]["failed"]
                    );
                }
            }
            let summary = json!({"periods": total, "added": sums[0], "changed": sums[1], "unchanged": sums[3]});
            if c.json {
                output::json(&summary);
            } else {
                println!(
                    "{total} periods: {} added, {} changed, {} unchanged",
                    sums[0], sums[1], sums[3]
                );
            }
            Ok(())
        }
        CostsCommand::Missing {
            merchant, from, to, ..
        } => {
            let mut q = vec![
                ("sellerId", merchant.seller_id.as_str()),
                ("marketplaceId", merchant.marketplace_id.as_str()),
            ];
            opt(&mut q, "from", &from);
            opt(&mut q, "to", &to);
            let answer = api.get(&with_query("/api/costs/missing", &q)).await?;
            if c.json {
                output::json(&answer);
                return Ok(());
            }
            if !c.quiet {
                eprintln!(
                    "{} to {}: {} of {} SKUs sold have a cost",
                    answer["from"].as_str().unwrap_or(""),
                    answer["to"].as_str().unwrap_or(""),
                    answer["skusCosted"],
                    answer["skusSold"]
                );
            }
            let rows = answer["missing"].as_array().cloned().unwrap_or_default();
            let columns = [
                "sku",
                "asin",
                "firstSold",
                "lastSold",
                "units",
                "sales",
                "costFrom",
            ];
            print!("{}", output::table(&columns, &rows));
            Ok(())
        }
        CostsCommand::Changes { limit, .. } => {
            let path = with_query("/api/costs/changes", &[("limit", &limit.to_string())]);
            let answer = api.get(&path).await?;
            if c.json {
                output::json(&answer);
                return Ok(());
            }
            let rows = answer["changes"].as_array().cloned().unwrap_or_default();
            let columns = [
                "id", "at", "actor", "what", "subject", "before", "after", "reason",
            ];
            print!("{}", output::table(&columns, &rows));
            Ok(())
        }
        CostsCommand::Currency { code, .. } => {
            let answer = match code {
                Some(code) => {
                    let body = json!({ "reportingCurrency": code });
                    api.put("/api/profit/settings", &body).await?
                }
                None => api.get("/api/profit/settings").await?,
            };
            if c.json {
                output::json(&answer);
            } else {
                println!("{}", answer["reportingCurrency"].as_str().unwrap_or(""));
            }
            Ok(())
        }
    }
}

/// A listed period as a cost file's row.
fn file_row(p: &Value) -> Value {
    let money = |k: &str| json!(format!("{:.2}", p[k].as_f64().unwrap_or(0.0)));
    json!({
        "seller_id": p["sellerId"],
        "marketplace_id": p["marketplaceId"],
        "sku": p["sku"],
        "valid_from": p["validFrom"],
        "currency": p["currency"],
        "unit_cost": money("unitCost"),
        "freight": money("freight"),
        "duties": money("duties"),
    })
}

fn period_json(p: &pp_profit::CostInput) -> Value {
    json!({
        "sellerId": p.seller_id,
        "marketplaceId": p.marketplace_id,
        "sku": p.sku,
        "validFrom": p.valid_from,
        "currency": p.currency,
        "unitCost": p.unit_cost,
        "freight": p.freight,
        "duties": p.duties,
    })
}

pub async fn rates(cmd: RatesCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    match cmd {
        RatesCommand::Import {
            file,
            currencies,
            source,
            ..
        } => {
            let rates = pp_profit::ecb::read(&read_file(&file)?, &currencies).map_err(invalid)?;
            let source = source.unwrap_or_else(|| {
                file.file_name()
                    .map_or_else(|| "rates".into(), |n| n.to_string_lossy().into_owned())
            });
            let mut sums = [0_u64; 3];
            for chunk in rates.chunks(MAX_RATES) {
                let body = json!({
                    "source": source,
                    "rates": chunk.iter().map(|r| json!({
                        "date": r.day,
                        "currency": r.currency,
                        "perEur": pp_profit::money::rate_text(r.per_eur_e6),
                    })).collect::<Vec<_>>(),
                });
                let answer = api.post("/api/exchange-rates", &body).await?;
                for (s, k) in sums.iter_mut().zip(["added", "changed", "unchanged"]) {
                    *s += answer[k].as_u64().unwrap_or(0);
                }
            }
            let summary = json!({"rates": rates.len(), "added": sums[0], "changed": sums[1], "unchanged": sums[2]});
            if c.json {
                output::json(&summary);
            } else {
                println!(
                    "{} rates: {} added, {} changed, {} unchanged",
                    rates.len(),
                    sums[0],
                    sums[1],
                    sums[2]
                );
            }
            Ok(())
        }
        RatesCommand::List {
            currency, from, to, ..
        } => {
            let mut q = Vec::new();
            opt(&mut q, "currency", &currency);
            opt(&mut q, "from", &from);
            opt(&mut q, "to", &to);
            let answer = api.get(&with_query("/api/exchange-rates", &q)).await?;
            if c.json {
                output::json(&answer);
                return Ok(());
            }
            let rows = answer["rates"].as_array().cloned().unwrap_or_default();
            print!("{}", output::table(&["date", "currency", "perEur"], &rows));
            if !c.quiet {
                for cov in answer["coverage"].as_array().into_iter().flatten() {
                    eprintln!(
                        "{}: {} days from {} through {}",
                        cov["currency"].as_str().unwrap_or(""),
                        cov["days"],
                        cov["from"].as_str().unwrap_or(""),
                        cov["through"].as_str().unwrap_or("")
                    );
                }
            }
            Ok(())
        }
    }
}
