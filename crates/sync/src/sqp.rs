//! Brand analytics search query performance, the one dataset a slice of needs several
//! reports: the provider answers it by ASIN and takes at most 200 characters of ASINs a
//! report, so a slice asks for the synced catalog's ASINs list by list (each create keyed by
//! the slice, the run and the list, so a repeated step reuses them) and sums the lists'
//! documents per week and query. A seller without brand analytics is told so by the provider
//! at the first create; the dataset then shows `unavailable` with the provider's words.

use chrono::NaiveDate;
use pp_core::{Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::documents::selling;
use pp_marketplace::ledger::Family;
use pp_marketplace::service::Account;
use pp_store::jobs::{Outcome, now_ms};
use pp_store::sync::Progress;
use serde_json::{Value, json};

use crate::datasets::Dataset;
use crate::job::{Checkpoint, ReportCk, RunCk, cont, spapi_request};
use crate::rows::{self, Load, Seller};
use crate::service::WarehouseSync;

/// The report type.
const REPORT: &str = "GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT";
/// The longest ASIN list one report takes, in characters (space separated).
const MOST_ASIN_CHARS: usize = 200;

/// `asins` cut into space-separated lists of at most `most` characters each.
fn asin_lists(asins: &[String], most: usize) -> Vec<String> {
    let mut lists: Vec<String> = Vec::new();
    for a in asins {
        match lists.last_mut() {
            Some(l) if l.len() + 1 + a.len() <= most => {
                l.push(' ');
                l.push_str(a);
            }
            _ => lists.push(a.clone()),
        }
    }
    lists
}

impl WarehouseSync {
    /// Creates the slice's reports, one per list of the catalog's ASINs; waits for the
    /// catalog while it has none.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn create_sqp(
        &self,
        tenant: &TenantId,
        merchant: &Merchant,
        account: &Account<'_>,
        (seller_id, ds): (i64, &Dataset),
        (from, to): (NaiveDate, NaiveDate),
        run: &RunCk,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let at = (tenant, seller_id, ds.name);
        let engine = self.warehouses.of_tenant(tenant).await?;
        let asins = pp_warehouse::directory::listed_asins(
            engine.as_ref(),
            &self.warehouses.limits,
            seller_id,
        )
        .await?;
        if asins.is_empty() {
            let next = now_ms() + 60_000;
            let why = "waits for the catalog's first load: the provider answers by ASIN";
            let p = Progress {
                note: Some(Some(why.into())),
                next_run_ms: Some(next),
                ..Progress::default()
            };
            self.store
                .sync()
                .record(tenant, seller_id, ds.name, p)
                .await?;
            return Ok(cont(ck, next));
        }
        let key = format!(
            "sync|{seller_id}|{}|{}|{from}|{to}",
            ds.name, run.started_ms
        );
        let feeds = self.market.feeds();
        let mut ids = Vec::new();
        for (i, list) in asin_lists(&asins, MOST_ASIN_CHARS).into_iter().enumerate() {
            let options = json!({ "reportPeriod": "WEEK", "asin": list });
            let body = spapi_request(REPORT, merchant, Some((from, to)), options);
            let key = format!("{key}|{i}");
            match feeds
                .create_report(tenant, account, Family::Spapi, body, &key, run.started_ms)
                .await
            {
                Ok(id) => ids.push(id),
                // the provider does not give this seller brand analytics
                Err(e) if matches!(e.kind, Kind::BadRequest | Kind::RestrictedReport) => {
                    ck.run = None;
                    let why = format!("the provider says: {}", e.message());
                    return self.unavailable(at, ck, why).await;
                }
                Err(e) => return Err(e),
            }
        }
        let mut ids = ids.into_iter();
        let id = ids.next().unwrap_or_default();
        ck.report = Some(ReportCk {
            id,
            from,
            to,
            also: None,
            parts: ids.collect(),
        });
        Ok(cont(
            ck,
            now_ms() + self.settings.poll.as_millis() as i64 / 4,
        ))
    }

    /// The slice's rows once every list's report is done (`None` while one is being made).
    pub(crate) async fn collect_sqp(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        seller: &Seller,
        r: &ReportCk,
        ck: &mut Checkpoint,
    ) -> Result<Option<Load>> {
        let mut parts = Vec::new();
        for id in std::iter::once(&r.id).chain(&r.parts) {
            let Some(text) = self.spapi_done(tenant, account, r, id, ck).await? else {
                return Ok(None);
            };
            let Some(text) = text else { continue };
            let doc: Value = serde_json::from_str(&text).map_err(|e| {
                pp_core::Error::new(
                    Kind::UpstreamUnavailable,
                    format!("the provider's search query performance document does not read: {e}"),
                )
            })?;
            parts.push(selling::search_query_performance(&doc)?);
        }
        Ok(Some(rows::search_query_performance(
            seller,
            (r.from, r.to),
            &parts,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asin_lists_stay_within_the_providers_length() {
        let asins: Vec<String> = (0..40).map(|i| format!("B0{i:08}")).collect();
        let lists = asin_lists(&asins, MOST_ASIN_CHARS);
        // eighteen ten-character ASINs and their seventeen spaces make 197 characters
        assert_eq!(
            lists
                .iter()
                .map(|l| l.split(' ').count())
                .collect::<Vec<_>>(),
            [18, 18, 4]
        );
        assert!(lists.iter().all(|l| l.len() <= MOST_ASIN_CHARS));
        assert_eq!(lists.join(" ").split(' ').collect::<Vec<_>>(), asins);
    }
}
