//! Profit's tenant data: dated landed-cost periods per merchant, marketplace and SKU, euro
//! reference rates per day and currency, the tenant's reporting currency, and the audit log
//! of every change to them. A write is one transaction: every row of a batch lands with its
//! change rows, or nothing does. `pp-profit` validates what is written and reads it back.

use pp_core::{Error, Kind, Result, TenantId};
use serde_json::{Value, json};

use crate::args;
use crate::db::{Arg, Db, Row, Tx};
use crate::jobs::now_ms;

/// Which SKU of which merchant a cost period is for, and the day it starts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CostKey {
    pub seller_id: String,
    pub marketplace_id: String,
    pub sku: String,
    /// `YYYY-MM-DD`: the period runs until the day before the SKU's next period.
    pub valid_from: String,
}

/// A landed cost per unit from a day on, in whole cents of `currency`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cost {
    pub currency: String,
    pub unit_cents: i64,
    pub freight_cents: i64,
    pub duties_cents: i64,
}

/// A stored cost period and who set it.
#[derive(Debug, Clone, PartialEq)]
pub struct CostRow {
    pub key: CostKey,
    pub cost: Cost,
    pub updated_by: String,
    pub updated_ms: i64,
}

/// One day's euro reference rate of a currency: one euro buys `per_eur_e6 / 10^6` of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    pub day: String,
    pub currency: String,
    pub per_eur_e6: i64,
}

/// A change the audit log holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRow {
    pub id: i64,
    pub at_ms: i64,
    pub actor: String,
    /// `cost`, `rates` or `reporting_currency`.
    pub what: String,
    pub subject: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub reason: Option<String>,
}

/// What one cost batch changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CostsWritten {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    pub unchanged: usize,
}

/// What one rate import changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RatesWritten {
    pub added: usize,
    pub changed: usize,
    pub unchanged: usize,
}

/// The rate changes an import's audit row lists one by one (the rest are counted).
const LISTED_RATE_CHANGES: usize = 100;

const COST_COLUMNS: &str = "seller_id, marketplace_id, sku, valid_from, currency, unit_cents, freight_cents, duties_cents, updated_by, updated_ms";

fn cost_row(r: &Row) -> Result<CostRow> {
    Ok(CostRow {
        key: CostKey {
            seller_id: r.text(0)?,
            marketplace_id: r.text(1)?,
            sku: r.text(2)?,
            valid_from: r.text(3)?,
        },
        cost: Cost {
            currency: r.text(4)?,
            unit_cents: r.i64(5)?,
            freight_cents: r.i64(6)?,
            duties_cents: r.i64(7)?,
        },
        updated_by: r.text(8)?,
        updated_ms: r.i64(9)?,
    })
}

fn cost_json(c: &Cost) -> Value {
    json!({
        "currency": c.currency,
        "unitCents": c.unit_cents,
        "freightCents": c.freight_cents,
        "dutiesCents": c.duties_cents,
    })
}

impl CostKey {
    fn subject(&self) -> String {
        format!(
            "{}/{}/{}@{}",
            self.seller_id, self.marketplace_id, self.sku, self.valid_from
        )
    }
}

/// One row of the audit log to write.
struct Logged<'a> {
    what: &'a str,
    subject: &'a str,
    before: Option<Value>,
    after: Option<Value>,
    reason: Option<&'a str>,
}

async fn change(tx: &mut Tx, tenant: &str, by: &str, c: Logged<'_>) -> Result<()> {
    tx.exec(
        "INSERT INTO profit_changes (tenant_id, at_ms, actor, what, subject, before, after, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        args![
            tenant,
            now_ms(),
            by,
            c.what,
            c.subject,
            c.before.map(|v| v.to_string()),
            c.after.map(|v| v.to_string()),
            c.reason
        ],
    )
    .await?;
    Ok(())
}

/// The profit data aggregate.
pub struct Costs<'a>(pub(crate) &'a Db);

impl Costs<'_> {
    /// The tenant's cost periods of one merchant in one marketplace (every merchant's when
    /// `merchant` is `None`), one SKU's when `sku` is given, by SKU then start.
    pub async fn periods(
        &self,
        tenant: &TenantId,
        merchant: Option<(&str, &str)>,
        sku: Option<&str>,
    ) -> Result<Vec<CostRow>> {
        let (seller, market) = merchant.unzip();
        self.0
            .all(
                format!(
                    "SELECT {COST_COLUMNS} FROM cost_periods WHERE tenant_id = ?1
                     AND (?2 IS NULL OR seller_id = ?2) AND (?3 IS NULL OR marketplace_id = ?3)
                     AND (?4 IS NULL OR sku = ?4)
                     ORDER BY seller_id, marketplace_id, sku, valid_from"
                ),
                args![tenant.as_str(), seller, market, sku],
            )
            .await?
            .iter()
            .map(cost_row)
            .collect()
    }

    /// Sets each of `put` (a period with the same key is replaced) and removes each of
    /// `remove`, in one transaction with one audit row per change, recorded as `by`. A
    /// period to remove that does not exist fails the whole batch (`not_found`).
    pub async fn write(
        &self,
        tenant: &TenantId,
        put: Vec<(CostKey, Cost)>,
        remove: Vec<CostKey>,
        by: &str,
        reason: Option<String>,
    ) -> Result<CostsWritten> {
        let (tenant, by) = (tenant.as_str().to_owned(), by.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("costs/{tenant}")).await?;
                    let mut out = CostsWritten::default();
                    let reason = reason.as_deref();
                    for key in &remove {
                        let Some(before) = Self::one(tx, &tenant, key).await? else {
                            return Err(Error::new(
                                Kind::NotFound,
                                format!("no cost period {} to remove", key.subject()),
                            ));
                        };
                        tx.exec(
                            "DELETE FROM cost_periods WHERE tenant_id = ?1 AND seller_id = ?2 AND marketplace_id = ?3 AND sku = ?4 AND valid_from = ?5",
                            args![&tenant, &key.seller_id, &key.marketplace_id, &key.sku, &key.valid_from],
                        )
                        .await?;
                        let before = Some(cost_json(&before.cost));
                        change(tx, &tenant, &by, Logged { what: "cost", subject: &key.subject(), before, after: None, reason })
                            .await?;
                        out.removed += 1;
                    }
                    for (key, cost) in &put {
                        let before = Self::one(tx, &tenant, key).await?;
                        if before.as_ref().is_some_and(|b| &b.cost == cost) {
                            out.unchanged += 1;
                            continue;
                        }
                        tx.exec(
                            "INSERT INTO cost_periods (tenant_id, seller_id, marketplace_id, sku, valid_from, currency, unit_cents, freight_cents, duties_cents, updated_by, updated_ms)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                             ON CONFLICT (tenant_id, seller_id, marketplace_id, sku, valid_from) DO UPDATE SET
                             currency = excluded.currency, unit_cents = excluded.unit_cents, freight_cents = excluded.freight_cents,
                             duties_cents = excluded.duties_cents, updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
                            args![
                                &tenant, &key.seller_id, &key.marketplace_id, &key.sku, &key.valid_from,
                                &cost.currency, cost.unit_cents, cost.freight_cents, cost.duties_cents,
                                &by, now_ms()
                            ],
                        )
                        .await?;
                        match &before {
                            Some(_) => out.changed += 1,
                            None => out.added += 1,
                        }
                        let before = before.map(|b| cost_json(&b.cost));
                        let after = Some(cost_json(cost));
                        change(tx, &tenant, &by, Logged { what: "cost", subject: &key.subject(), before, after, reason })
                            .await?;
                    }
                    Ok(out)
                })
            })
            .await
    }

    async fn one(tx: &mut Tx, tenant: &str, key: &CostKey) -> Result<Option<CostRow>> {
        let sql = format!(
            "SELECT {COST_COLUMNS} FROM cost_periods WHERE tenant_id = ?1 AND seller_id = ?2 AND marketplace_id = ?3 AND sku = ?4 AND valid_from = ?5{}",
            tx.for_update()
        );
        tx.one(
            sql,
            args![
                tenant,
                &key.seller_id,
                &key.marketplace_id,
                &key.sku,
                &key.valid_from
            ],
        )
        .await?
        .as_ref()
        .map(cost_row)
        .transpose()
    }

    /// The tenant's rates of `currency` (every currency's when `None`) on the days
    /// `from..=to`, by currency then day.
    pub async fn rates(
        &self,
        tenant: &TenantId,
        currency: Option<&str>,
        from: &str,
        to: &str,
    ) -> Result<Vec<Rate>> {
        self.0
            .all(
                "SELECT day, currency, per_eur_e6 FROM exchange_rates WHERE tenant_id = ?1
                 AND (?2 IS NULL OR currency = ?2) AND day >= ?3 AND day <= ?4 ORDER BY currency, day",
                args![tenant.as_str(), currency, from, to],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(Rate {
                    day: r.text(0)?,
                    currency: r.text(1)?,
                    per_eur_e6: r.i64(2)?,
                })
            })
            .collect()
    }

    /// Each currency's first and last day held and its number of days, by currency.
    pub async fn rate_coverage(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<(String, String, String, i64)>> {
        self.0
            .all(
                "SELECT currency, MIN(day), MAX(day), COUNT(*) FROM exchange_rates WHERE tenant_id = ?1 GROUP BY currency ORDER BY currency",
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.text(1)?, r.text(2)?, r.i64(3)?)))
            .collect()
    }

    /// Sets every rate of `rates` (a day and currency held already is replaced), in one
    /// transaction with one audit row for the import (its source, counts, days and the first
    /// rates it changed), recorded as `by`.
    pub async fn put_rates(
        &self,
        tenant: &TenantId,
        rates: Vec<Rate>,
        source: String,
        by: &str,
    ) -> Result<RatesWritten> {
        let (tenant, by) = (tenant.as_str().to_owned(), by.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("rates/{tenant}")).await?;
                    let mut out = RatesWritten::default();
                    let mut listed = Vec::new();
                    let mut fresh = Vec::new();
                    for r in &rates {
                        let held = tx
                            .one(
                                format!(
                                    "SELECT per_eur_e6 FROM exchange_rates WHERE tenant_id = ?1 AND currency = ?2 AND day = ?3{}",
                                    tx.for_update()
                                ),
                                args![&tenant, &r.currency, &r.day],
                            )
                            .await?
                            .map(|row| row.i64(0))
                            .transpose()?;
                        match held {
                            Some(v) if v == r.per_eur_e6 => out.unchanged += 1,
                            Some(v) => {
                                tx.exec(
                                    "UPDATE exchange_rates SET per_eur_e6 = ?4, source = ?5, updated_by = ?6, updated_ms = ?7
                                     WHERE tenant_id = ?1 AND currency = ?2 AND day = ?3",
                                    args![&tenant, &r.currency, &r.day, r.per_eur_e6, &source, &by, now_ms()],
                                )
                                .await?;
                                out.changed += 1;
                                if listed.len() < LISTED_RATE_CHANGES {
                                    listed.push(json!({"day": r.day, "currency": r.currency, "beforeE6": v, "afterE6": r.per_eur_e6}));
                                }
                            }
                            None => {
                                out.added += 1;
                                fresh.push(vec![
                                    Arg::from(tenant.as_str()),
                                    Arg::from(r.day.as_str()),
                                    Arg::from(r.currency.as_str()),
                                    Arg::from(r.per_eur_e6),
                                    Arg::from(source.as_str()),
                                    Arg::from(by.as_str()),
                                    Arg::from(now_ms()),
                                ]);
                            }
                        }
                    }
                    tx.insert_rows(
                        "INSERT INTO exchange_rates (tenant_id, day, currency, per_eur_e6, source, updated_by, updated_ms)",
                        "",
                        fresh,
                    )
                    .await?;
                    if out.added + out.changed > 0 {
                        let days = rates.iter().map(|r| r.day.as_str());
                        let after = json!({
                            "source": source,
                            "from": days.clone().min(),
                            "through": days.max(),
                            "added": out.added,
                            "changed": out.changed,
                            "unchanged": out.unchanged,
                            "changes": listed,
                        });
                        change(tx, &tenant, &by, Logged { what: "rates", subject: &source, before: None, after: Some(after), reason: None }).await?;
                    }
                    Ok(out)
                })
            })
            .await
    }

    /// The tenant's reporting currency, who set it and when, if it was ever set.
    pub async fn reporting_currency(
        &self,
        tenant: &TenantId,
    ) -> Result<Option<(String, String, i64)>> {
        self.0
            .one(
                "SELECT reporting_currency, updated_by, updated_ms FROM profit_settings WHERE tenant_id = ?1",
                args![tenant.as_str()],
            )
            .await?
            .map(|r| Ok((r.text(0)?, r.text(1)?, r.i64(2)?)))
            .transpose()
    }

    /// Sets the tenant's reporting currency (audited when it changes).
    pub async fn set_reporting_currency(
        &self,
        tenant: &TenantId,
        currency: &str,
        by: &str,
    ) -> Result<()> {
        let (tenant, currency, by) = (
            tenant.as_str().to_owned(),
            currency.to_owned(),
            by.to_owned(),
        );
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let before = tx
                        .one(
                            format!(
                                "SELECT reporting_currency FROM profit_settings WHERE tenant_id = ?1{}",
                                tx.for_update()
                            ),
                            args![&tenant],
                        )
                        .await?
                        .map(|r| r.text(0))
                        .transpose()?;
                    if before.as_deref() == Some(currency.as_str()) {
                        return Ok(());
                    }
                    tx.exec(
                        "INSERT INTO profit_settings (tenant_id, reporting_currency, updated_by, updated_ms) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (tenant_id) DO UPDATE SET reporting_currency = excluded.reporting_currency,
                         updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
                        args![&tenant, &currency, &by, now_ms()],
                    )
                    .await?;
                    let (before, after) = (before.map(Value::from), Some(Value::from(currency)));
                    change(tx, &tenant, &by, Logged { what: "reporting_currency", subject: "tenant", before, after, reason: None })
                        .await
                })
            })
            .await
    }

    /// The audit log, newest first: at most `limit` changes older than `before` (an id).
    pub async fn changes(
        &self,
        tenant: &TenantId,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<ChangeRow>> {
        self.0
            .all(
                "SELECT id, at_ms, actor, what, subject, before, after, reason FROM profit_changes
                 WHERE tenant_id = ?1 AND (?2 IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3",
                args![tenant.as_str(), before, limit],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(ChangeRow {
                    id: r.i64(0)?,
                    at_ms: r.i64(1)?,
                    actor: r.text(2)?,
                    what: r.text(3)?,
                    subject: r.text(4)?,
                    before: r.opt_json(5)?,
                    after: r.opt_json(6)?,
                    reason: r.opt_text(7)?,
                })
            })
            .collect()
    }
}
