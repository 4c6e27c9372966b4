//! The warehouse reads a P&L is made of, for one seller row and a span of days: every posted
//! amount (closed settlements' lines, and the transaction list's amounts not in a closed
//! settlement yet), the units returned to stock, advertising spend by campaign and day, the
//! ordered sales of the days nothing is posted for yet, and how far each source reaches.
//! Amounts are read one by one (a conversion is per amount), a month at a time so no read
//! passes the row cap.

use chrono::{Datelike, Duration, NaiveDate};
use pp_core::{Error, Result};
use pp_warehouse::directory;
use pp_warehouse::params::Scalar;
use pp_warehouse::row::{Row, RowMap};

use super::lines::{Line, Origin, classify};
use crate::data::{self, Wh};

/// One posted amount.
#[derive(Debug, Clone)]
pub struct Posting {
    pub sku: Option<String>,
    pub day: NaiveDate,
    pub line: Line,
    /// The amount's description (named when its line is unclassified).
    pub desc: String,
    /// Units, on a sale's principal.
    pub units: i64,
    /// Part of a refund (its commission returned, say), not of a sale.
    pub refund: bool,
    pub cents: i64,
    pub origin: Origin,
}

/// How far each source reaches for a seller.
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    /// The first day no closed settlement covers (none: nothing has settled yet).
    pub open_from: Option<NaiveDate>,
    /// The last day the transaction list holds.
    pub listed_through: Option<NaiveDate>,
}

fn day_of(r: &RowMap, column: &str) -> Result<NaiveDate> {
    data::date(r, column)
}

/// `(from, to)` cut into calendar months.
fn months(from: NaiveDate, to: NaiveDate) -> Vec<(NaiveDate, NaiveDate)> {
    let mut out = Vec::new();
    let mut start = from;
    while start <= to {
        let next = NaiveDate::from_ymd_opt(start.year(), start.month(), 1)
            .and_then(|d| d.checked_add_months(chrono::Months::new(1)))
            .expect("a month");
        let end = (next - Duration::days(1)).min(to);
        out.push((start, end));
        start = end + Duration::days(1);
    }
    out
}

async fn has(wh: &Wh, table: &str) -> Result<bool> {
    directory::has_table(wh.engine.as_ref(), table).await
}

/// How far the settlements and the transaction list reach for `seller`.
pub async fn reach(wh: &Wh, seller: i64) -> Result<Reach> {
    let d = wh.dialect();
    let mut r = Reach {
        open_from: None,
        listed_through: None,
    };
    if has(wh, "spapi_settlement").await? {
        // the latest line posted is in the latest settlement (periods follow each other): one
        // step down the (SellerID, Posted-date-time) index, where a MAX of the end would read
        // every line the seller ever had
        let sql = format!(
            "SELECT {} AS e FROM spapi_settlement WHERE SellerID = ? ORDER BY {} DESC LIMIT 1",
            d.column("Settlement-end-date"),
            d.column("Posted-date-time")
        );
        let rows = wh.rows(&sql, vec![Scalar::Int(seller)]).await?;
        if let Some(t) = rows.first().and_then(|r| r.opt_text("e").ok().flatten()) {
            // the days before the latest period's end are settled (a period ending later than
            // midnight leaves its last day open too)
            let end = NaiveDate::parse_from_str(&t[..t.len().min(10)], "%Y-%m-%d")
                .map_err(|e| Error::internal_with(format!("settlement end {t}"), e))?;
            r.open_from = Some(end);
        }
    }
    if has(wh, "spapi_finance_transaction").await? {
        let rows = wh
            .rows(
                "SELECT MAX(Date) AS d FROM spapi_finance_transaction WHERE SellerID = ?",
                vec![Scalar::Int(seller)],
            )
            .await?;
        if let Some(row) = rows.first()
            && row.opt_text("d")?.is_some()
        {
            r.listed_through = Some(day_of(row, "d")?);
        }
    }
    Ok(r)
}

fn posting(r: &RowMap, origin: Origin) -> Result<Option<Posting>> {
    let (ttype, atype, desc) = (r.text("ttype")?, r.text("atype")?, r.text("adesc")?);
    let Some(line) = classify(ttype, atype, desc) else {
        return Ok(None);
    };
    Ok(Some(Posting {
        sku: r.opt_text("sku")?.map(str::to_owned),
        day: day_of(r, "posted")?,
        line,
        desc: desc.to_owned(),
        units: if line == Line::Sales {
            r.opt_int("qty")?.unwrap_or(0)
        } else {
            0
        },
        cents: r.int("cents")?,
        refund: ttype == "Refund",
        origin,
    }))
}

/// What keeps a transaction-list read to the amounts whose settlement has not closed, and its
/// bound values: an amount of a closed settlement is among that settlement's lines, posted at
/// the same moment, so a settlement with a line in the days `lo..hi` (`hi` excluded) is
/// counted already. Nothing to keep out while the warehouse has no settlement table.
fn unsettled(wh: &Wh, settled: bool, seller: i64, lo: &str, hi: &str) -> (String, Vec<Scalar>) {
    if !settled {
        return (String::new(), Vec::new());
    }
    let d = wh.dialect();
    let clause = format!(
        " AND {sid} NOT IN (SELECT {sid} FROM spapi_settlement WHERE SellerID = ? AND {posted} >= ? AND {posted} < ?)",
        sid = d.column("Settlement-id"),
        posted = d.column("Posted-date-time"),
    );
    let args = vec![
        Scalar::Int(seller),
        Scalar::Text(lo.to_owned()),
        Scalar::Text(hi.to_owned()),
    ];
    (clause, args)
}

/// Every amount posted on the days `from..=to`: closed settlements' lines, then the
/// transaction list's amounts whose settlement has not closed.
pub async fn postings(
    wh: &Wh,
    seller: i64,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<Posting>> {
    let d = wh.dialect();
    let c = |n: &str| d.column(n);
    let (settled, listed) = (
        has(wh, "spapi_settlement").await?,
        has(wh, "spapi_finance_transaction").await?,
    );
    let mut out = Vec::new();
    for (a, b) in months(from, to) {
        let (lo, hi) = (a.to_string(), (b + Duration::days(1)).to_string());
        if settled {
            let sql = format!(
                "SELECT Sku AS sku, {posted} AS posted, {tt} AS ttype, {at} AS atype, {ad} AS adesc,
                 {q} AS qty, {cents} AS cents FROM spapi_settlement
                 WHERE SellerID = ? AND {posted} >= ? AND {posted} < ?",
                posted = c("Posted-date-time"),
                tt = c("Transaction-type"),
                at = c("Amount-type"),
                ad = c("Amount-description"),
                q = c("Quantity-purchased"),
                cents = d.cents("Amount"),
            );
            let args = vec![
                Scalar::Int(seller),
                Scalar::Text(lo.clone()),
                Scalar::Text(hi.clone()),
            ];
            for r in wh.rows(&sql, args).await? {
                out.extend(posting(&r, Origin::Settled)?);
            }
        }
        if listed {
            let (closed, keep) = unsettled(wh, settled, seller, &lo, &hi);
            let sql = format!(
                "SELECT Sku AS sku, {posted} AS posted, {tt} AS ttype, {at} AS atype, {ad} AS adesc,
                 Quantity AS qty, {cents} AS cents FROM spapi_finance_transaction
                 WHERE SellerID = ? AND Date >= ? AND Date <= ?{closed}",
                posted = c("Posted-date-time"),
                tt = c("Transaction-type"),
                at = c("Amount-type"),
                ad = c("Amount-description"),
                cents = d.cents("Amount"),
            );
            let mut args = vec![
                Scalar::Int(seller),
                Scalar::Text(lo.clone()),
                Scalar::Text(b.to_string()),
            ];
            args.extend(keep);
            for r in wh.rows(&sql, args).await? {
                out.extend(posting(&r, Origin::Posted)?);
            }
        }
    }
    Ok(out)
}

/// Units returned to stock (SELLABLE) by SKU and day, one row per return.
pub async fn restocked(
    wh: &Wh,
    seller: i64,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<(String, NaiveDate, i64)>> {
    if !has(wh, "spapi_fba_returns").await? {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT SKU AS sku, Date AS d, Quantity AS q FROM spapi_fba_returns
         WHERE SellerID = ? AND Date >= ? AND Date <= ? AND {} = 'SELLABLE'",
        wh.dialect().column("Detailed-disposition")
    );
    let args = vec![
        Scalar::Int(seller),
        Scalar::Text(from.to_string()),
        Scalar::Text(to.to_string()),
    ];
    wh.rows(&sql, args)
        .await?
        .iter()
        .map(|r| Ok((r.text("sku")?.to_owned(), day_of(r, "d")?, r.int("q")?)))
        .collect()
}

/// Advertising spend by campaign (or DSP line item) and day.
pub async fn advertising(
    wh: &Wh,
    seller: i64,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<(NaiveDate, Line, i64)>> {
    let d = wh.dialect();
    let args = || {
        vec![
            Scalar::Int(seller),
            Scalar::Text(from.to_string()),
            Scalar::Text(to.to_string()),
        ]
    };
    let mut out = Vec::new();
    if has(wh, "ads_campaign_daily").await? {
        let sql = format!(
            "SELECT Date AS d, AdProduct AS p, {} AS c FROM ads_campaign_daily
             WHERE SellerID = ? AND Date >= ? AND Date <= ? AND Cost <> 0",
            d.cents("Cost")
        );
        for r in wh.rows(&sql, args()).await? {
            out.push((
                day_of(&r, "d")?,
                Line::advertising(r.text("p")?),
                -r.int("c")?,
            ));
        }
    }
    if has(wh, "dsp_daily").await? {
        let sql = format!(
            "SELECT Date AS d, {} AS c FROM dsp_daily WHERE SellerID = ? AND Date >= ? AND Date <= ? AND TotalCost <> 0",
            d.cents("TotalCost")
        );
        for r in wh.rows(&sql, args()).await? {
            out.push((day_of(&r, "d")?, Line::AdvertisingDsp, -r.int("c")?));
        }
    }
    Ok(out)
}

/// Ordered units and sales by SKU and day (the days nothing is posted for yet).
pub async fn ordered(
    wh: &Wh,
    seller: i64,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<(String, NaiveDate, i64, i64)>> {
    let d = wh.dialect();
    let sql = format!(
        "SELECT SKU AS sku, Date AS d, UnitsOrdered AS u, {} AS c FROM spapi_sales_and_traffic_by_asin
         WHERE SellerID = ? AND Date >= ? AND Date <= ? AND UnitsOrdered > 0 AND SKU IS NOT NULL",
        d.cents("OrderedProductSales")
    );
    let args = vec![
        Scalar::Int(seller),
        Scalar::Text(from.to_string()),
        Scalar::Text(to.to_string()),
    ];
    wh.rows(&sql, args)
        .await?
        .iter()
        .map(|r| {
            Ok((
                r.text("sku")?.to_owned(),
                day_of(r, "d")?,
                r.int("u")?,
                r.int("c")?,
            ))
        })
        .collect()
}

/// The last day of ordered sales the warehouse holds for `seller`.
pub async fn sales_through(wh: &Wh, seller: i64) -> Result<Option<NaiveDate>> {
    let rows = wh
        .rows(
            "SELECT MAX(Date) AS d FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ?",
            vec![Scalar::Int(seller)],
        )
        .await?;
    match rows.first() {
        Some(r) if r.opt_text("d")?.is_some() => Ok(Some(day_of(r, "d")?)),
        _ => Ok(None),
    }
}

/// One line of a settlement, as the payout reconciliation reads it.
#[derive(Debug, Clone)]
pub struct SettlementLine {
    pub ttype: String,
    pub atype: String,
    pub desc: String,
    pub order: Option<String>,
    pub units: i64,
    pub cents: i64,
}

/// A closed settlement of a seller: its id, period and deposit day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettlementHead {
    pub id: String,
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub deposit_date: NaiveDate,
}

/// The seller's closed settlements, newest first (at most `limit`).
pub async fn settlements(wh: &Wh, seller: i64, limit: usize) -> Result<Vec<SettlementHead>> {
    if !has(wh, "spapi_settlement").await? {
        return Ok(Vec::new());
    }
    let d = wh.dialect();
    let c = |n: &str| d.column(n);
    let sql = format!(
        "SELECT {sid} AS sid, MIN({s}) AS s, MAX({e}) AS e, MAX({dd}) AS dd FROM spapi_settlement
         WHERE SellerID = ? GROUP BY {sid} ORDER BY MAX({e}) DESC",
        sid = c("Settlement-id"),
        s = c("Settlement-start-date"),
        e = c("Settlement-end-date"),
        dd = c("Deposit-date"),
    );
    let rows = wh.rows(&sql, vec![Scalar::Int(seller)]).await?;
    rows.iter()
        .take(limit)
        .map(|r| {
            Ok(SettlementHead {
                id: data::key(r, "sid")?,
                start: day_of(r, "s")?,
                end: day_of(r, "e")?,
                deposit_date: day_of(r, "dd")?,
            })
        })
        .collect()
}

/// Every line of settlement `id` of the seller.
pub async fn settlement_lines(wh: &Wh, seller: i64, id: &str) -> Result<Vec<SettlementLine>> {
    let d = wh.dialect();
    let c = |n: &str| d.column(n);
    let sql = format!(
        "SELECT {tt} AS ttype, {at} AS atype, {ad} AS adesc, {o} AS o, {q} AS qty, {cents} AS cents
         FROM spapi_settlement WHERE SellerID = ? AND {sid} = ?",
        tt = c("Transaction-type"),
        at = c("Amount-type"),
        ad = c("Amount-description"),
        o = c("Order-id"),
        q = c("Quantity-purchased"),
        sid = c("Settlement-id"),
        cents = d.cents("Amount"),
    );
    let rows = wh
        .rows(&sql, vec![Scalar::Int(seller), Scalar::Text(id.to_owned())])
        .await?;
    rows.iter()
        .map(|r| {
            Ok(SettlementLine {
                ttype: r.text("ttype")?.to_owned(),
                atype: r.text("atype")?.to_owned(),
                desc: r.text("adesc")?.to_owned(),
                order: r.opt_text("o")?.map(str::to_owned),
                units: r.opt_int("qty")?.unwrap_or(0),
                cents: r.int("cents")?,
            })
        })
        .collect()
}

/// Posted amounts summed by SKU, calendar month and kind (the monthly read of a merchant whose
/// amounts need no conversion: a few rows per SKU and month instead of one per amount).
#[derive(Debug, Clone)]
pub struct Summed {
    pub sku: Option<String>,
    /// The month's first day.
    pub month: NaiveDate,
    pub line: Line,
    pub desc: String,
    pub units: i64,
    pub cents: i64,
    pub origin: Origin,
}

fn summed(r: &RowMap, origin: Origin) -> Result<Option<Summed>> {
    let Some(p) = posting_kind(r)? else {
        return Ok(None);
    };
    let m = r.text("m")?;
    let month = NaiveDate::parse_from_str(&format!("{}-01", &m[..m.len().min(7)]), "%Y-%m-%d")
        .map_err(|e| Error::internal_with(format!("month {m}"), e))?;
    Ok(Some(Summed {
        sku: r.opt_text("sku")?.map(str::to_owned),
        month,
        units: if p.0 == Line::Sales {
            r.opt_int("qty")?.unwrap_or(0)
        } else {
            0
        },
        line: p.0,
        desc: p.1,
        cents: r.int("cents")?,
        origin,
    }))
}

/// A row's line and description (`None`: no P&L line).
fn posting_kind(r: &RowMap) -> Result<Option<(Line, String)>> {
    let (ttype, atype, desc) = (r.text("ttype")?, r.text("atype")?, r.text("adesc")?);
    Ok(classify(ttype, atype, desc).map(|l| (l, desc.to_owned())))
}

/// Every amount posted on the days `from..=to`, summed by SKU, month and kind: closed
/// settlements' lines, then the transaction list's amounts whose settlement has not closed.
pub async fn postings_by_month(
    wh: &Wh,
    seller: i64,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<Summed>> {
    let d = wh.dialect();
    let c = |n: &str| d.column(n);
    let (settled, listed) = (
        has(wh, "spapi_settlement").await?,
        has(wh, "spapi_finance_transaction").await?,
    );
    let (lo, hi) = (from.to_string(), (to + Duration::days(1)).to_string());
    let (posted, tt, at, ad) = (
        c("Posted-date-time"),
        c("Transaction-type"),
        c("Amount-type"),
        c("Amount-description"),
    );
    let month = d.month(&posted);
    let mut out = Vec::new();
    if settled {
        let sql = format!(
            "SELECT Sku AS sku, {month} AS m, {tt} AS ttype, {at} AS atype, {ad} AS adesc,
             {qty} AS qty, {cents} AS cents FROM spapi_settlement
             WHERE SellerID = ? AND {posted} >= ? AND {posted} < ?
             GROUP BY Sku, {month}, {tt}, {at}, {ad}",
            qty = d.int(&format!("SUM({})", c("Quantity-purchased"))),
            cents = d.sum_cents("Amount"),
        );
        let args = vec![
            Scalar::Int(seller),
            Scalar::Text(lo.clone()),
            Scalar::Text(hi.clone()),
        ];
        for r in wh.rows(&sql, args).await? {
            out.extend(summed(&r, Origin::Settled)?);
        }
    }
    if listed {
        let (closed, keep) = unsettled(wh, settled, seller, &lo, &hi);
        let sql = format!(
            "SELECT Sku AS sku, {month} AS m, {tt} AS ttype, {at} AS atype, {ad} AS adesc,
             {qty} AS qty, {cents} AS cents FROM spapi_finance_transaction
             WHERE SellerID = ? AND Date >= ? AND Date <= ?{closed}
             GROUP BY Sku, {month}, {tt}, {at}, {ad}",
            qty = d.int("SUM(Quantity)"),
            cents = d.sum_cents("Amount"),
        );
        let mut args = vec![
            Scalar::Int(seller),
            Scalar::Text(lo.clone()),
            Scalar::Text(to.to_string()),
        ];
        args.extend(keep);
        for r in wh.rows(&sql, args).await? {
            out.extend(summed(&r, Origin::Posted)?);
        }
    }
    Ok(out)
}

/// The units each of `skus` sold on each day of `from..=to` (a sale's principal), settled and
/// posted: the days of a month in which a SKU's cost changes.
pub async fn units_by_day(
    wh: &Wh,
    seller: i64,
    skus: &[String],
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<(String, NaiveDate, i64, Origin)>> {
    if skus.is_empty() {
        return Ok(Vec::new());
    }
    let d = wh.dialect();
    let c = |n: &str| d.column(n);
    let (lo, hi) = (from.to_string(), (to + Duration::days(1)).to_string());
    let marks = vec!["?"; skus.len()].join(", ");
    let sale = format!(
        "{tt} IN ('Order', 'Shipment') AND {at} = 'ItemPrice' AND {ad} = 'Principal' AND Sku IN ({marks})",
        tt = c("Transaction-type"),
        at = c("Amount-type"),
        ad = c("Amount-description"),
    );
    let posted = c("Posted-date-time");
    let args = |extra: Vec<Scalar>| {
        let mut a = vec![
            Scalar::Int(seller),
            Scalar::Text(lo.clone()),
            Scalar::Text(hi.clone()),
        ];
        a.extend(skus.iter().map(|s| Scalar::Text(s.clone())));
        a.extend(extra);
        a
    };
    let mut out = Vec::new();
    if has(wh, "spapi_settlement").await? {
        let sql = format!(
            "SELECT Sku AS sku, {posted} AS posted, {q} AS qty FROM spapi_settlement
             WHERE SellerID = ? AND {posted} >= ? AND {posted} < ? AND {sale}",
            q = c("Quantity-purchased"),
        );
        for r in wh.rows(&sql, args(Vec::new())).await? {
            out.push((
                r.text("sku")?.to_owned(),
                day_of(&r, "posted")?,
                r.opt_int("qty")?.unwrap_or(0),
                Origin::Settled,
            ));
        }
    }
    let settled = has(wh, "spapi_settlement").await?;
    if has(wh, "spapi_finance_transaction").await? {
        let (closed, keep) = unsettled(wh, settled, seller, &lo, &hi);
        let sql = format!(
            "SELECT Sku AS sku, {posted} AS posted, Quantity AS qty FROM spapi_finance_transaction
             WHERE SellerID = ? AND {posted} >= ? AND {posted} < ? AND {sale}{closed}"
        );
        for r in wh.rows(&sql, args(keep)).await? {
            out.push((
                r.text("sku")?.to_owned(),
                day_of(&r, "posted")?,
                r.opt_int("qty")?.unwrap_or(0),
                Origin::Posted,
            ));
        }
    }
    Ok(out)
}
