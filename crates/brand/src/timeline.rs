//! The timeline (docs/brand-memory.md): native events (injected history, stakes, comments, action
//! outcomes, corroborations, structural lifecycle events) and, at read time, the projection of
//! committed advertising changes (`ads_changes`, from the audit log). Stakes carry a category, a window and a required interpretation;
//! corroboration refreshes their status and close date.

use chrono::{Duration, NaiveDate};
use pp_core::cursor::{Cursors, fingerprint};
use pp_core::{Error, Kind, Result};
use pp_store::Store;
pub use pp_store::brand::NewEvent;
use pp_store::brand::{Corroborated, EventRow, TimelineQuery};
use serde_json::{Map, Value, json};

use crate::answers::{Appended, Event, Events, Window};
use crate::{BrandRef, Writer, bad, find, one_line};

/// Stake categories.
pub const CATEGORIES: &[&str] = &[
    "launch",
    "promotional_window",
    "stockout",
    "price_test",
    "media_spike",
    "brand_migration",
    "seasonal_peak",
    "budget_change",
    "listing_change",
    "other",
];
/// Kinds a caller may append.
pub const APPENDABLE: &[&str] = &["stake", "comment", "action_outcome"];
/// Outcomes of an action.
pub const OUTCOMES: &[&str] = &["worked", "did_not_work", "mixed", "unknown"];
/// Days a proposed stake stays open after its window ends.
pub const OPEN_DAYS: i64 = 30;
/// Days a corroboration keeps a stake open from the day it lands.
pub const CORROBORATED_DAYS: i64 = 90;
/// Fields naming who acts: ignored, because appends are recorded as the credential.
const ATTRIBUTION: &[&str] = &["actor", "changed_by", "created_by"];

fn date(name: &str, v: Option<&Value>) -> Result<Option<NaiveDate>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => pp_core::wire::calendar_date(s).map(Some).ok_or_else(|| {
            bad(format!(
                "{name} must be a date YYYY-MM-DD from 0001-01-01 to 9999-12-31"
            ))
        }),
        Some(_) => Err(bad(format!("{name} must be a date YYYY-MM-DD"))),
    }
}

fn text(name: &str, v: Option<&Value>, max: usize) -> Result<Option<String>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Err(bad(format!("{name} is empty"))),
        Some(Value::String(s)) if s.chars().count() > max => {
            Err(bad(format!("{name} is longer than {max} characters")))
        }
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("{name} must be a string"))),
    }
}

fn labels(name: &str, v: Option<&Value>) -> Result<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) if a.len() <= 20 => a
            .iter()
            .map(|x| {
                x.as_str()
                    .filter(|s| !s.trim().is_empty() && s.len() <= 64)
                    .map(str::to_owned)
                    .ok_or_else(|| bad(format!("{name} holds 1-64 character strings")))
            })
            .collect(),
        Some(_) => Err(bad(format!(
            "{name} must be an array of at most 20 strings"
        ))),
    }
}

/// A checked append (`POST /v1/timeline/event`, the `timeline_add_event` tool): every format
/// rule is checked here, before the brand is looked up or anything is written.
#[derive(Debug)]
pub struct Append {
    brand: String,
    kind: String,
    stake: Option<StakeWindow>,
    note: Option<String>,
    outcome: Option<String>,
    occurred_on: Option<NaiveDate>,
    affects: Vec<String>,
    tags: Vec<String>,
    on_behalf_of: Option<String>,
}

/// What only a stake carries.
#[derive(Debug)]
struct StakeWindow {
    category: String,
    starts: NaiveDate,
    ends: Option<NaiveDate>,
    interpretation: String,
}

impl Append {
    /// Reads a request body; any rule broken is `bad_params`.
    pub fn parse(body: &Map<String, Value>) -> Result<Self> {
        let allowed = [
            "brand",
            "kind",
            "category",
            "starts_on",
            "ends_on",
            "interpretation",
            "note",
            "outcome",
            "occurred_on",
            "affects",
            "tags",
            "on_behalf_of",
        ];
        if let Some(k) = body
            .keys()
            .find(|k| !allowed.contains(&k.as_str()) && !ATTRIBUTION.contains(&k.as_str()))
        {
            return Err(bad(format!("'{k}' is not a field of a timeline event")));
        }
        let kind = body
            .get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("kind is required (stake, comment or action_outcome)"))?;
        if !APPENDABLE.contains(&kind) {
            return Err(bad(format!(
                "kind '{kind}' cannot be appended: callers append stake, comment or action_outcome; knowledge.*, structural.* and monitor.* kinds are reserved"
            )));
        }
        let brand = body
            .get("brand")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("brand is required"))?;
        let mut a = Append {
            brand: brand.to_owned(),
            kind: kind.to_owned(),
            stake: None,
            note: text("note", body.get("note"), 2_000)?,
            outcome: None,
            occurred_on: None,
            affects: labels("affects", body.get("affects"))?,
            tags: labels("tags", body.get("tags"))?,
            on_behalf_of: one_line("on_behalf_of", body.get("on_behalf_of"), 254)?,
        };
        if kind == "stake" {
            let category = body
                .get("category")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a stake needs a category"))?;
            if !CATEGORIES.contains(&category) {
                return Err(bad(format!(
                    "category must be one of {}",
                    CATEGORIES.join(", ")
                )));
            }
            let starts = date("starts_on", body.get("starts_on"))?
                .ok_or_else(|| bad("a stake needs starts_on (its window)"))?;
            let ends = date("ends_on", body.get("ends_on"))?;
            if ends.is_some_and(|e| e < starts) {
                return Err(bad("ends_on is before starts_on"));
            }
            let interpretation = text("interpretation", body.get("interpretation"), 2_000)?
                .ok_or_else(|| {
                    bad("a stake needs an interpretation: how should the numbers be read?")
                })?;
            a.stake = Some(StakeWindow {
                category: category.to_owned(),
                starts,
                ends,
                interpretation,
            });
            return Ok(a);
        }
        if a.note.is_none() {
            return Err(bad(format!("a {kind} needs a note")));
        }
        a.occurred_on = date("occurred_on", body.get("occurred_on"))?;
        if kind == "action_outcome" {
            let outcome =
                one_line("outcome", body.get("outcome"), 32)?.unwrap_or_else(|| "unknown".into());
            if !OUTCOMES.contains(&outcome.as_str()) {
                return Err(bad(format!(
                    "outcome must be one of {}",
                    OUTCOMES.join(", ")
                )));
            }
            a.outcome = Some(outcome);
        }
        Ok(a)
    }

    /// The event to store, recorded through `source` on `today`.
    fn event(self, source: &str, today: NaiveDate) -> NewEvent {
        let mut e = NewEvent {
            brand: self.brand,
            kind: self.kind,
            source: source.to_owned(),
            affects: self.affects,
            tags: self.tags,
            on_behalf_of: self.on_behalf_of,
            note: self.note,
            payload: match self.outcome {
                Some(o) => json!({ "outcome": o }),
                None => json!({}),
            },
            occurred_on: self.occurred_on.unwrap_or(today).to_string(),
            ..NewEvent::default()
        };
        if let Some(s) = self.stake {
            e.interpretation = Some(s.interpretation);
            e.category = Some(s.category);
            e.starts_on = Some(s.starts.to_string());
            e.ends_on = s.ends.map(|d| d.to_string());
            e.occurred_on = s.starts.to_string();
            e.status = Some("proposed".into());
            e.closes_on = Some(
                (s.ends.unwrap_or(s.starts).max(today) + Duration::days(OPEN_DAYS)).to_string(),
            );
        }
        e
    }
}

/// Stores a checked append as `w`.
pub async fn append(
    store: &Store,
    tenant: &str,
    brands: &[BrandRef],
    w: &Writer<'_>,
    a: Append,
    today: NaiveDate,
) -> Result<Appended> {
    find(brands, &a.brand)?;
    let e = a.event(&w.surface, today);
    let id = store.brand().append(tenant, e, w.author()).await?;
    Ok(Appended {
        event: get(store, tenant, id, today).await?,
        stake: None,
    })
}

/// A checked corroboration: an optional note and the person it is recorded for.
#[derive(Debug, Default)]
pub struct Corroboration {
    note: Option<String>,
    on_behalf_of: Option<String>,
}

impl Corroboration {
    /// Reads a request body; any rule broken is `bad_params`.
    pub fn parse(body: &Map<String, Value>) -> Result<Self> {
        if let Some(k) = body.keys().find(|k| {
            !["note", "on_behalf_of"].contains(&k.as_str()) && !ATTRIBUTION.contains(&k.as_str())
        }) {
            return Err(bad(format!("'{k}' is not a field of a corroboration")));
        }
        Ok(Self {
            note: text("note", body.get("note"), 2_000)?,
            on_behalf_of: one_line("on_behalf_of", body.get("on_behalf_of"), 254)?,
        })
    }
}

/// Corroborates stake `id`: appends a corroboration and reopens the stake for
/// `CORROBORATED_DAYS` from today (never shortening it).
pub async fn corroborate(
    store: &Store,
    tenant: &str,
    w: &Writer<'_>,
    id: i64,
    c: Corroboration,
    today: NaiveDate,
) -> Result<Appended> {
    let Corroboration { note, on_behalf_of } = c;
    let e = NewEvent {
        kind: "corroboration".into(),
        occurred_on: today.to_string(),
        source: w.surface.to_owned(),
        note,
        on_behalf_of,
        payload: json!({}),
        ..NewEvent::default()
    };
    let extended = (today + Duration::days(CORROBORATED_DAYS)).to_string();
    let corroboration = match store
        .brand()
        .corroborate(tenant, id, extended, e, w.author())
        .await?
    {
        Corroborated::Recorded(c) => c,
        Corroborated::NotFound => return Err(Error::not_found(format!("no timeline event {id}"))),
        Corroborated::NotAStake(kind) => {
            return Err(bad(format!(
                "event {id} is a {kind}; only stakes can be corroborated"
            )));
        }
    };
    Ok(Appended {
        event: get(store, tenant, corroboration, today).await?,
        stake: Some(get(store, tenant, id, today).await?),
    })
}

/// A stored event as a reader sees it: an open stake whose close date has passed is `closed`.
fn event(r: EventRow, today: &str) -> Result<Event> {
    // a stored list that no longer parses is a failure to read, never a default
    let list = |v: Value| serde_json::from_value::<Vec<String>>(v).map_err(Error::internal_from);
    let status = if r.kind == "stake" && r.closes_on.as_deref().is_some_and(|c| c < today) {
        Some("closed".to_owned())
    } else {
        r.status
    };
    let window = (r.kind == "stake").then_some(Window {
        starts_on: r.starts_on,
        ends_on: r.ends_on,
    });
    Ok(Event {
        id: r.id,
        brand: r.brand,
        family: r.family,
        kind: r.kind,
        occurred_on: r.occurred_on,
        category: r.category,
        window,
        interpretation: r.interpretation,
        status,
        closes_on: r.closes_on,
        source: r.source,
        affects: list(r.affects)?,
        tags: list(r.tags)?,
        note: r.note,
        reason_code: r.reason_code,
        on_behalf_of: r.on_behalf_of,
        parent_id: r.parent_id,
        payload: r.payload,
        actor: r.actor,
        surface: r.surface,
        created_at: r.created_at,
    })
}

/// One event by id.
pub async fn get(store: &Store, tenant: &str, id: i64, today: NaiveDate) -> Result<Event> {
    let row = store.brand().event(tenant, id).await?;
    let row = row.ok_or_else(|| Error::not_found(format!("no timeline event {id}")))?;
    event(row, &today.to_string())
}

/// `GET /v1/timeline` filters.
#[derive(Default, Clone)]
pub struct Filter {
    pub brand: Option<String>,
    pub family: Option<String>,
    pub kind: Option<String>,
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
    pub category: Option<String>,
    pub source: Option<String>,
    pub status: Option<String>,
    pub affects: Option<String>,
    pub tag: Option<String>,
    /// Stakes whose window overlaps this interval.
    pub overlaps: Option<(NaiveDate, NaiveDate)>,
    /// Stakes starting after today.
    pub future: bool,
    pub limit: i64,
    pub cursor: Option<String>,
}

/// Events newest first (by day, then id), filtered and paged with a signed cursor.
pub async fn list(
    store: &Store,
    tenant: &str,
    cursors: &Cursors,
    f: &Filter,
    today: NaiveDate,
) -> Result<Events> {
    if let Some(fam) = &f.family
        && !["native", "ads_change", "ads_approval"].contains(&fam.as_str())
    {
        return Err(Error::new(
            Kind::InvalidRequest,
            "family must be native, ads_change or ads_approval",
        ));
    }
    let fp = fingerprint(&[
        "timeline",
        tenant,
        f.brand.as_deref().unwrap_or(""),
        f.family.as_deref().unwrap_or(""),
        f.kind.as_deref().unwrap_or(""),
        &f.start.map(|d| d.to_string()).unwrap_or_default(),
        &f.end.map(|d| d.to_string()).unwrap_or_default(),
        f.category.as_deref().unwrap_or(""),
        f.source.as_deref().unwrap_or(""),
        f.status.as_deref().unwrap_or(""),
        f.affects.as_deref().unwrap_or(""),
        f.tag.as_deref().unwrap_or(""),
        &f.overlaps
            .map(|o| format!("{}..{}", o.0, o.1))
            .unwrap_or_default(),
        if f.future { "future" } else { "" },
    ]);
    let after = f
        .cursor
        .as_deref()
        .map(|c| cursors.decode(&fp, c))
        .transpose()?;
    if f.family.as_deref() == Some("ads_change") {
        let t = pp_core::TenantId::parse(tenant)
            .map_err(|_| Error::internal("a tenant id does not parse"))?;
        return crate::ads_changes::list(store, &t, cursors, &fp, after, f).await;
    }
    if f.family.as_deref() == Some("ads_approval") {
        let t = pp_core::TenantId::parse(tenant)
            .map_err(|_| Error::internal("a tenant id does not parse"))?;
        return crate::approvals::list(store, &t, cursors, &fp, after, f).await;
    }
    let t = today.to_string();
    let q = TimelineQuery {
        today: t.clone(),
        brand: f.brand.clone(),
        kind: f.kind.clone(),
        category: f.category.clone(),
        source: f.source.clone(),
        status: f.status.clone(),
        start: f.start.map(|d| d.to_string()),
        end: f.end.map(|d| d.to_string()),
        affects: f.affects.clone(),
        tag: f.tag.clone(),
        overlaps: f.overlaps.map(|(a, b)| (a.to_string(), b.to_string())),
        future: f.future,
        after: after.as_ref().map(|k| {
            let day = k
                .get(0)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            (day, k.get(1).and_then(Value::as_i64).unwrap_or_default())
        }),
        limit: f.limit + 1,
    };
    let mut rows = store
        .brand()
        .timeline(tenant, &q)
        .await?
        .into_iter()
        .map(|r| event(r, &t))
        .collect::<Result<Vec<_>>>()?;
    let more = rows.len() as i64 > f.limit;
    rows.truncate(f.limit as usize);
    let next = if more {
        rows.last()
            .map(|r| cursors.encode(&fp, &json!([r.occurred_on, r.id])))
    } else {
        None
    };
    Ok(Events {
        events: rows,
        next_cursor: next,
    })
}
