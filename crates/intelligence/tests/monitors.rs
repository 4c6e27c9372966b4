//! The monitors over the demo world's history, day by day as if after each day's sync (a
//! replay), held to the world's ground truth: the stock-out monitor alerts on every stock-out
//! the world injected within a day of its start, ends each episode when stock is back, and
//! raises nothing in a week the world left quiet; the anomaly monitor raises nothing on a
//! campaign below its minimum samples; an episode is told once however often it is evaluated.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::{Duration, NaiveDate};
use pp_core::TenantId;
use pp_intelligence::monitors::{Evaluated, Monitors};
use pp_store::events::EventQuery;
use pp_world::{Event, GroundTruth};
use serde_json::json;

struct World {
    monitors: Monitors,
    store: pp_store::Store,
    truth: GroundTruth,
    tenant: TenantId,
    rt: tokio::runtime::Runtime,
}

/// The demo world (the dev server's seed and scale) as a tenant's warehouse.
fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let spec = pp_world::WorldSpec::new(
            20_261_122,
            pp_world::Scale::Small,
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        );
        let g = pp_world::generate_sqlite(&spec, &dir.join("w")).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let store = pp_store::Store::open(&dir.join("state")).unwrap();
        let tenant = TenantId::parse("demo").unwrap();
        rt.block_on(async {
            store
                .tenants()
                .create(
                    &tenant,
                    "Demo",
                    &format!("sqlite:{}", g.warehouse.display()),
                )
                .await
                .unwrap()
        });
        let warehouses =
            pp_warehouse::Warehouses::new(store.clone(), pp_warehouse::Limits::default());
        World {
            monitors: Monitors::new(store.clone(), warehouses),
            store,
            truth: g.truth,
            tenant,
            rt,
        }
    })
}

/// Every injected stock-out: (seller, asin, first day, last day).
fn stockouts(t: &GroundTruth) -> Vec<(i64, String, NaiveDate, NaiveDate)> {
    t.events
        .iter()
        .filter_map(|e| match e {
            Event::StockOut {
                seller_id,
                asin,
                start,
                end,
                ..
            } => Some((*seller_id, asin.clone(), *start, *end)),
            _ => None,
        })
        .collect()
}

/// The stock-out monitor alone, replayed over the whole history once.
fn stockout_replay(w: &World) -> &'static Evaluated {
    static R: OnceLock<Evaluated> = OnceLock::new();
    R.get_or_init(|| {
        w.rt.block_on(async {
            let settings = json!({
                "lowCover": {"enabled": false}, "outOfBudget": {"enabled": false},
                "spendOffPlan": {"enabled": false}, "anomaly": {"enabled": false}
            });
            w.store
                .monitors()
                .set_settings(&w.tenant, &settings, "test")
                .await
                .unwrap();
            let (from, to) = history(w);
            w.monitors.replay(&w.tenant, None, from, to).await.unwrap()
        })
    })
}

/// The days the world holds (after the monitors' lead).
fn history(w: &World) -> (NaiveDate, NaiveDate) {
    let first = w.truth.events.iter().filter_map(|e| match e {
        Event::StockOut { start, .. } => Some(*start),
        _ => None,
    });
    let earliest = first.min().unwrap();
    (
        earliest - Duration::days(40),
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap(),
    )
}

#[test]
fn every_injected_stockout_is_alerted_within_a_day_and_ended_when_stock_is_back() {
    let w = world();
    let r = stockout_replay(w);
    let truth = stockouts(&w.truth);
    assert!(truth.len() >= 6, "the world injects stock-outs: {truth:?}");
    let started: Vec<_> = r
        .started
        .iter()
        .filter(|e| e.monitor == "stockout")
        .collect();
    eprintln!(
        "{} injected stock-outs, {} alerts over {} merchant-days",
        truth.len(),
        started.len(),
        r.days
    );
    for (seller, asin, start, end) in &truth {
        let subject = format!("{seller}:{asin}");
        let hit = started.iter().find(|e| {
            let on: NaiveDate = e.started_on.parse().unwrap();
            e.subject == subject && on >= *start && on <= *start + Duration::days(1)
        });
        let hit = hit.unwrap_or_else(|| {
            panic!("no alert for the stock-out of {subject} from {start}: {started:?}")
        });
        let ended = r
            .ended
            .iter()
            .find(|e| e.subject == subject && e.started_on == hit.started_on);
        if *end < NaiveDate::from_ymd_opt(2026, 11, 21).unwrap() {
            let ended = ended
                .unwrap_or_else(|| panic!("the episode of {subject} from {start} never ended"));
            let on: NaiveDate = ended.ended_on.as_deref().unwrap().parse().unwrap();
            assert!(
                on > *end && on <= *end + Duration::days(2),
                "{subject}: ended {on}, stock back after {end}"
            );
        }
        assert_eq!(hit.evidence["sellable"], 0, "{hit:?}");
        assert!(hit.evidence["unitsSold"].as_i64().unwrap() > 0, "{hit:?}");
    }
    // each alert is one of the injected stock-outs (no alert where the world had stock)
    for e in &started {
        let on: NaiveDate = e.started_on.parse().unwrap();
        assert!(
            truth
                .iter()
                .any(|(s, a, start, end)| e.subject == format!("{s}:{a}")
                    && on >= *start
                    && on <= *end),
            "an alert the world did not inject: {e:?}"
        );
    }
    // each was told once in the feed, as it started and as it ended
    w.rt.block_on(async {
        let q = EventQuery {
            scopes: vec!["retail:read".into()],
            types: vec!["monitor.stockout".into()],
            limit: 10_000,
            ..Default::default()
        };
        let told = w.store.events().list(&w.tenant, &q).await.unwrap();
        let starts = told
            .iter()
            .filter(|e| e.data["episode"] == "started")
            .count();
        assert_eq!(starts, started.len(), "one event per episode");
        let timeline = w
            .store
            .brand()
            .timeline(
                w.tenant.as_str(),
                &pp_store::brand::TimelineQuery {
                    kind: Some("monitor.stockout".into()),
                    limit: 10_000,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert!(
            timeline.len() >= started.len(),
            "each start is on its brand's timeline: {}",
            timeline.len()
        );
        assert!(
            timeline
                .iter()
                .all(|t| t.family == "native" && t.source == "monitor")
        );
    });
}

#[test]
fn a_quiet_week_raises_nothing_and_a_second_evaluation_tells_nothing_new() {
    let w = world();
    let r = stockout_replay(w);
    let truth = stockouts(&w.truth);
    // the quiet weeks: seven days no stock-out touches, over the replayed history
    let (from, to) = history(w);
    let mut quiet = 0;
    let mut week = from + Duration::days(30);
    while week + Duration::days(7) <= to {
        let touched = truth
            .iter()
            .any(|(_, _, s, e)| *s <= week + Duration::days(7) && *e >= week - Duration::days(1));
        if !touched {
            quiet += 1;
            let raised: Vec<_> = r
                .started
                .iter()
                .filter(|e| {
                    let on: NaiveDate = e.started_on.parse().unwrap();
                    on >= week && on < week + Duration::days(7)
                })
                .collect();
            assert!(
                raised.is_empty(),
                "the week of {week} was quiet in the world: {raised:?}"
            );
        }
        week += Duration::days(7);
    }
    eprintln!("{quiet} quiet weeks checked");
    assert!(quiet > 50, "{quiet} quiet weeks checked");
    // the last day evaluated again (another instance, a retried job): nothing new is told
    w.rt.block_on(async {
        let again = w.monitors.replay(&w.tenant, None, to, to).await.unwrap();
        assert!(
            again.started.is_empty() && again.ended.is_empty(),
            "{again:?}"
        );
    });
}

#[test]
fn the_anomaly_monitor_says_nothing_about_a_campaign_below_its_minimum_samples() {
    let w = world();
    w.rt.block_on(async {
        let tenant = TenantId::parse("anomalies").unwrap();
        let wh = w.store.tenants().get(&w.tenant).await.unwrap().unwrap().warehouse;
        w.store.tenants().create(&tenant, "Anomalies", &wh).await.unwrap();
        // a sensitive range (2.5 standard deviations), so the monitor speaks where it may
        let only_anomalies = json!({
            "stockout": {"enabled": false}, "lowCover": {"enabled": false}, "outOfBudget": {"enabled": false},
            "spendOffPlan": {"enabled": false}, "anomaly": {"z": 2.5}
        });
        w.store.monitors().set_settings(&tenant, &only_anomalies, "test").await.unwrap();
        let to = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        let from = to - Duration::days(180);
        let r = w.monitors.replay(&tenant, None, from, to).await.unwrap();
        let s = pp_intelligence::monitors::MonitorSettings::default().anomaly;
        assert!(!r.started.is_empty(), "the monitor speaks about campaigns with enough samples");
        for e in &r.started {
            let ev = &e.evidence;
            let (clicks, orders, impressions) = (ev["clicks"].as_i64().unwrap(), ev["orders"].as_i64().unwrap(), ev["impressions"].as_i64().unwrap());
            let enough = match ev["metric"].as_str().unwrap() {
                "spend" | "conversion" => clicks >= s.min_clicks,
                "sales" | "acos" => orders >= s.min_orders,
                "ctr" => impressions >= s.min_impressions,
                m => panic!("unknown metric {m}"),
            };
            assert!(enough, "an anomaly below its minimum samples: {e:?}");
        }
        // the campaigns that never reach any minimum (clicks, orders, impressions) on any day
        // are never named
        let mut by_campaign: BTreeMap<String, usize> = BTreeMap::new();
        for e in &r.started {
            *by_campaign.entry(e.evidence["campaignId"].to_string()).or_default() += 1;
        }
        let small: Vec<String> = small_campaigns(w, &s, from, to).await;
        eprintln!("{} anomalies over {} merchant-days; {} campaigns below every minimum", r.started.len(), r.days, small.len());
        assert!(!small.is_empty(), "the world has campaigns below the minimum");
        for c in &small {
            assert!(!by_campaign.contains_key(c), "campaign {c} never reaches its minimum samples, yet was named");
        }
    });
}

/// Campaigns whose every day in `from..=to` is below each minimum of `s`.
async fn small_campaigns(
    w: &World,
    s: &pp_intelligence::monitors::settings::Anomaly,
    from: NaiveDate,
    to: NaiveDate,
) -> Vec<String> {
    let path = w
        .store
        .tenants()
        .get(&w.tenant)
        .await
        .unwrap()
        .unwrap()
        .warehouse;
    let path = path.strip_prefix("sqlite:").unwrap().to_owned();
    let c = rusqlite::Connection::open(path).unwrap();
    let mut st = c
        .prepare(
            "SELECT CampaignID FROM ads_campaign_daily WHERE Date BETWEEN ?1 AND ?2 GROUP BY CampaignID
             HAVING MAX(Clicks) < ?3 AND MAX(Purchases7d) < ?4 AND MAX(Impressions) < ?5",
        )
        .unwrap();
    let p = rusqlite::params![
        from.to_string(),
        to.to_string(),
        s.min_clicks,
        s.min_orders,
        s.min_impressions
    ];
    st.query_map(p, |r| r.get::<_, i64>(0))
        .unwrap()
        .map(|r| r.unwrap().to_string())
        .collect()
}

/// docs/events.md's table of monitors names every monitor, in order, and no other.
#[test]
fn the_reference_page_lists_every_monitor() {
    use pp_intelligence::monitors::Monitor;
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/events.md"))
            .unwrap();
    let listed: Vec<String> = page
        .lines()
        .skip_while(|l| !l.starts_with("| monitor | fires for |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.split('|')
                .nth(1)
                .unwrap()
                .trim()
                .trim_matches('`')
                .to_owned()
        })
        .collect();
    let monitors: Vec<String> = Monitor::ALL.iter().map(|m| m.as_str().to_owned()).collect();
    assert_eq!(listed, monitors, "docs/events.md's monitor table");
    // each tells its own event type, named for it
    for m in Monitor::ALL {
        assert_eq!(m.event().name, format!("monitor.{}", m.as_str()));
    }
}
