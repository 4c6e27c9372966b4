//! Brand analytics search query performance, the one dataset a slice of needs several
//! reports: the provider answers it by ASIN and takes at most 200 characters of ASINs a
//! report, so a slice asks for the synced catalog's ASINs list by list (each create keyed by
//! the slice, the run and the list, so a repeated step reuses them) and sums the lists'
//! documents per week and query. A seller without brand analytics is told so by the provider
//! at the first create; the dataset then shows `unavailable` with the provider's words.

use chrono::NaiveDate;
use pp_core::Kind;
use pp_marketplace::documents::selling;
use pp_marketplace::ledger::Family;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::json;

use super::days;
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started, json_doc};

/// The report type.
const REPORT: &str = "GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT";
/// The longest ASIN list one report takes, in characters (space separated).
const MOST_ASIN_CHARS: usize = 200;

/// The reader.
pub struct SearchQueryPerformance;

impl Reader for SearchQueryPerformance {
    fn label(&self) -> &'static str {
        "GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT (WEEK, by the catalog's ASINs)"
    }

    /// The slice's reports, one per list of the catalog's ASINs; waits for the catalog while
    /// it has none.
    fn start<'a>(&'a self, cx: &'a Cx<'_>, d: Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let engine = cx.engine().await?;
            let asins =
                pp_warehouse::directory::listed_asins(engine.as_ref(), cx.limits(), cx.seller.id)
                    .await?;
            if asins.is_empty() {
                return Ok(Started::Wait {
                    note: "waits for the catalog's first load: the provider answers by ASIN".into(),
                    after: cx.look_again(),
                });
            }
            let mut ids = Vec::new();
            for (i, list) in asin_lists(&asins, MOST_ASIN_CHARS).into_iter().enumerate() {
                let options = json!({ "reportPeriod": "WEEK", "asin": list });
                let body = cx.spapi_request(REPORT, Some(d), options);
                match cx.create(Family::Spapi, body, d, &i.to_string()).await {
                    Ok(id) => ids.push(id),
                    // the provider does not give this seller brand analytics
                    Err(e) if matches!(e.kind, Kind::BadRequest | Kind::RestrictedReport) => {
                        return Ok(Started::Unavailable(format!(
                            "the provider says: {}",
                            e.message()
                        )));
                    }
                    Err(e) => return Err(e),
                }
            }
            let mut ids = ids.into_iter();
            let id = ids.next().unwrap_or_default();
            Ok(Started::Asked(ReportCk {
                parts: ids.collect(),
                ..ReportCk::new(id, d)
            }))
        })
    }

    /// The slice's rows once every list's report is done.
    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let mut parts = Vec::new();
            for id in std::iter::once(&r.id).chain(&r.parts) {
                let Some(text) = cx.spapi_done(r, id).await? else {
                    return Ok(None);
                };
                let Some(text) = text else { continue };
                let doc = json_doc(cx.dataset, &text)?;
                parts.push(selling::search_query_performance(&doc)?);
            }
            Ok(Some(vec![rows(&cx.seller, r.days(), &parts)]))
        })
    }
}

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

/// Brand analytics search query performance over the weeks `from..=to`, from the documents of
/// every ASIN list the slice asked: one row per week and query, the marketplace's totals as
/// any ASIN's row gives them and the brand's part summed over the ASINs.
pub fn rows(
    seller: &Seller,
    (from, to): (NaiveDate, NaiveDate),
    parts: &[Vec<selling::QueryWeek>],
) -> Load {
    /// A query's week: the totals and the brand's part (impressions, clicks, cart adds,
    /// purchases), the week's end and the query's volume.
    type Week = ([i64; 4], [i64; 4], NaiveDate, i64);
    let mut weeks: std::collections::BTreeMap<(NaiveDate, &str), Week> = Default::default();
    for q in parts.iter().flatten() {
        let e = weeks
            .entry((q.week_start, q.query.as_str()))
            .or_insert(([0; 4], [0; 4], q.week_end, q.volume));
        let pairs = [q.impressions, q.clicks, q.cart_adds, q.purchases];
        for (k, (total, mine)) in pairs.into_iter().enumerate() {
            e.0[k] = total;
            e.1[k] += mine;
        }
    }
    let rows = weeks
        .into_iter()
        .map(|((start, query), (total, brand, end, volume))| {
            let mut r = vec![
                Cell::Int(seller.id),
                Cell::Text(seller.token.clone()),
                Cell::Text(start.to_string()),
                Cell::Text(end.to_string()),
                Cell::Text(query.to_owned()),
                Cell::Int(volume),
            ];
            r.extend((0..4).flat_map(|k| [Cell::Int(total[k]), Cell::Int(brand[k])]));
            r
        })
        .collect();
    Load {
        slice: days(
            table("spapi_brand_analytics_sqp"),
            seller,
            from,
            to,
            "WeekStart",
        ),
        rows,
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
