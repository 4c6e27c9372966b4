//! Timeline events and brand lifecycles. Events are read newest first (by day, then id) with
//! the filters of `GET /v1/timeline`; `affects` and `tags` are JSON lists, searched with each
//! engine's JSON functions.

use pp_core::Result;
use serde_json::Value;

use super::{Author, Brand};
use crate::args;
use crate::db::{Arg, Dialect, Row, Tx};
use crate::now_rfc3339;

/// An event to store.
#[derive(Debug, Default, Clone)]
pub struct NewEvent {
    pub brand: String,
    pub kind: String,
    pub occurred_on: String,
    pub category: Option<String>,
    pub starts_on: Option<String>,
    pub ends_on: Option<String>,
    pub interpretation: Option<String>,
    pub status: Option<String>,
    pub closes_on: Option<String>,
    pub source: String,
    pub affects: Vec<String>,
    pub tags: Vec<String>,
    pub note: Option<String>,
    pub reason_code: Option<String>,
    pub on_behalf_of: Option<String>,
    pub parent_id: Option<i64>,
    pub payload: Value,
}

/// A stored event, as its columns hold it (the stored status, not the effective one).
#[derive(Debug, Clone)]
pub struct EventRow {
    pub id: i64,
    pub brand: String,
    pub family: String,
    pub kind: String,
    pub occurred_on: String,
    pub category: Option<String>,
    pub starts_on: Option<String>,
    pub ends_on: Option<String>,
    pub interpretation: Option<String>,
    pub status: Option<String>,
    pub closes_on: Option<String>,
    pub source: String,
    pub affects: Value,
    pub tags: Value,
    pub note: Option<String>,
    pub reason_code: Option<String>,
    pub on_behalf_of: Option<String>,
    pub parent_id: Option<i64>,
    pub payload: Value,
    pub actor: String,
    pub surface: String,
    pub created_at: String,
}

/// The timeline's filters; dates are `YYYY-MM-DD`.
#[derive(Debug, Default, Clone)]
pub struct TimelineQuery {
    /// Today, against which a stake's effective status and "future" are judged.
    pub today: String,
    pub brand: Option<String>,
    pub kind: Option<String>,
    pub category: Option<String>,
    pub source: Option<String>,
    /// A stake's effective status (an open stake past its close date is `closed`).
    pub status: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub affects: Option<String>,
    pub tag: Option<String>,
    /// Stakes whose window overlaps this interval.
    pub overlaps: Option<(String, String)>,
    /// Stakes starting after today.
    pub future: bool,
    /// After this `(day, id)`.
    pub after: Option<(String, i64)>,
    pub limit: i64,
}

/// A brand's lifecycle as stored.
#[derive(Debug, Clone)]
pub struct LifecycleRow {
    pub brand: String,
    pub state: String,
    pub changed_at: String,
    pub changed_by: String,
    pub surface: String,
    pub reason_code: Option<String>,
}

/// What a lifecycle change did.
#[derive(Debug, Clone)]
pub enum LifecycleSet {
    /// The brand was already in that state (since `at`, if it ever changed).
    Unchanged { at: Option<String> },
    /// Changed at `at`, with the structural event `event_id`.
    Changed { at: String, event_id: i64 },
}

/// What a corroboration did.
#[derive(Debug, Clone)]
pub enum Corroborated {
    /// Recorded as event `id`.
    Recorded(i64),
    NotFound,
    /// The event is of this other kind.
    NotAStake(String),
}

const COLUMNS: &str = "id, brand, family, kind, occurred_on, category, starts_on, ends_on, interpretation, status, closes_on, source, affects, tags, note, \
                       reason_code, on_behalf_of, parent_id, payload, actor, surface, created_at";

fn event(r: &Row) -> Result<EventRow> {
    Ok(EventRow {
        id: r.i64(0)?,
        brand: r.text(1)?,
        family: r.text(2)?,
        kind: r.text(3)?,
        occurred_on: r.text(4)?,
        category: r.opt_text(5)?,
        starts_on: r.opt_text(6)?,
        ends_on: r.opt_text(7)?,
        interpretation: r.opt_text(8)?,
        status: r.opt_text(9)?,
        closes_on: r.opt_text(10)?,
        source: r.text(11)?,
        affects: r.json(12)?,
        tags: r.json(13)?,
        note: r.opt_text(14)?,
        reason_code: r.opt_text(15)?,
        on_behalf_of: r.opt_text(16)?,
        parent_id: r.opt_i64(17)?,
        payload: r.json(18)?,
        actor: r.text(19)?,
        surface: r.text(20)?,
        created_at: r.text(21)?,
    })
}

/// Stores `e` as `by`; its id.
pub(crate) async fn insert(tx: &mut Tx, tenant: &str, e: &NewEvent, by: &Author) -> Result<i64> {
    let row = tx
        .one(
            "INSERT INTO timeline_events (tenant_id, brand, family, kind, occurred_on, category, starts_on, ends_on, interpretation, status, closes_on,
               source, affects, tags, note, reason_code, on_behalf_of, parent_id, payload, actor, surface, created_at)
             VALUES (?1, ?2, 'native', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)
             RETURNING id",
            args![
                tenant, e.brand.as_str(), e.kind.as_str(), e.occurred_on.as_str(), e.category.clone(), e.starts_on.clone(), e.ends_on.clone(),
                e.interpretation.clone(), e.status.clone(), e.closes_on.clone(), e.source.as_str(),
                Value::from(e.affects.clone()).to_string(), Value::from(e.tags.clone()).to_string(), e.note.clone(), e.reason_code.clone(),
                e.on_behalf_of.clone(), e.parent_id, e.payload.to_string(), by.actor.as_str(), by.surface.as_str(), now_rfc3339()
            ],
        )
        .await?
        .ok_or_else(|| pp_core::Error::internal("an event insert returned no id"))?;
    row.i64(0)
}

/// `cond` over a JSON list column holding `value` (`#` is the value's placeholder).
fn json_has(dialect: Dialect, column: &str) -> String {
    match dialect {
        Dialect::Sqlite => format!("EXISTS (SELECT 1 FROM json_each({column}) WHERE value = #)"),
        Dialect::Postgres => format!("({column})::jsonb @> jsonb_build_array(CAST(# AS TEXT))"),
    }
}

impl Brand<'_> {
    /// Stores one event.
    pub async fn append(&self, tenant: &str, e: NewEvent, by: Author) -> Result<i64> {
        let tenant = tenant.to_owned();
        self.0
            .tx(move |tx| Box::pin(async move { insert(tx, &tenant, &e, &by).await }))
            .await
    }

    /// One event.
    pub async fn event(&self, tenant: &str, id: i64) -> Result<Option<EventRow>> {
        self.0
            .one(
                format!("SELECT {COLUMNS} FROM timeline_events WHERE tenant_id = ?1 AND id = ?2"),
                args![tenant, id],
            )
            .await?
            .as_ref()
            .map(event)
            .transpose()
    }

    /// Corroborates stake `id`: its status becomes `corroborated`, it closes no sooner than
    /// `closes_at_least`, and `e` (its parent set to the stake, its brand the stake's) is
    /// recorded, all at once.
    pub async fn corroborate(
        &self,
        tenant: &str,
        id: i64,
        closes_at_least: String,
        e: NewEvent,
        by: Author,
    ) -> Result<Corroborated> {
        let tenant = tenant.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let lock = tx.for_update();
                    let Some(r) = tx
                        .one(
                            format!("SELECT brand, kind, closes_on FROM timeline_events WHERE tenant_id = ?1 AND id = ?2{lock}"),
                            args![tenant.as_str(), id],
                        )
                        .await?
                    else {
                        return Ok(Corroborated::NotFound);
                    };
                    let (brand, kind, closes) = (r.text(0)?, r.text(1)?, r.opt_text(2)?);
                    if kind != "stake" {
                        return Ok(Corroborated::NotAStake(kind));
                    }
                    let closes_on = closes.filter(|c| *c > closes_at_least).unwrap_or(closes_at_least);
                    tx.exec(
                        "UPDATE timeline_events SET status = 'corroborated', closes_on = ?3 WHERE tenant_id = ?1 AND id = ?2",
                        args![tenant.as_str(), id, closes_on],
                    )
                    .await?;
                    let e = NewEvent { brand, parent_id: Some(id), ..e };
                    Ok(Corroborated::Recorded(insert(tx, &tenant, &e, &by).await?))
                })
            })
            .await
    }

    /// Events newest first (by day, then id) that pass `q`, at most `q.limit`.
    pub async fn timeline(&self, tenant: &str, q: &TimelineQuery) -> Result<Vec<EventRow>> {
        // ?2 is today: the status and future filters compare with it
        let mut sql =
            format!("SELECT {COLUMNS} FROM timeline_events WHERE tenant_id = ?1 AND ?2 = ?2");
        let mut args: Vec<Arg> = args![tenant, q.today.as_str()];
        let mut push = |cond: &str, v: Arg, sql: &mut String| {
            args.push(v);
            sql.push_str(&format!(
                " AND {}",
                cond.replace('#', &format!("?{}", args.len()))
            ));
        };
        for (col, v) in [
            ("brand", &q.brand),
            ("kind", &q.kind),
            ("category", &q.category),
            ("source", &q.source),
        ] {
            if let Some(v) = v {
                push(&format!("{col} = #"), v.into(), &mut sql);
            }
        }
        if let Some(s) = &q.status {
            push(
                "kind = 'stake' AND (CASE WHEN kind = 'stake' AND closes_on < ?2 THEN 'closed' ELSE status END) = #",
                s.into(),
                &mut sql,
            );
        }
        if let Some(d) = &q.start {
            push("occurred_on >= #", d.into(), &mut sql);
        }
        if let Some(d) = &q.end {
            push("occurred_on <= #", d.into(), &mut sql);
        }
        let dialect = self.0.dialect();
        if let Some(a) = &q.affects {
            push(&json_has(dialect, "affects"), a.into(), &mut sql);
        }
        if let Some(t) = &q.tag {
            push(&json_has(dialect, "tags"), t.into(), &mut sql);
        }
        if let Some((a, b)) = &q.overlaps {
            push("kind = 'stake' AND starts_on <= #", b.into(), &mut sql);
            push("COALESCE(ends_on, '9999-12-31') >= #", a.into(), &mut sql);
        }
        if q.future {
            push(
                "kind = 'stake' AND starts_on > #",
                q.today.as_str().into(),
                &mut sql,
            );
        }
        if let Some((day, id)) = &q.after {
            args.push(day.into());
            let d = args.len();
            args.push((*id).into());
            sql.push_str(&format!(
                " AND (occurred_on < ?{d} OR (occurred_on = ?{d} AND id < ?{}))",
                d + 1
            ));
        }
        args.push(q.limit.into());
        sql.push_str(&format!(
            " ORDER BY occurred_on DESC, id DESC LIMIT ?{}",
            args.len()
        ));
        self.0.all(sql, args).await?.iter().map(event).collect()
    }

    /// Every brand lifecycle of `tenant` that has ever changed.
    pub async fn lifecycles(&self, tenant: &str) -> Result<Vec<LifecycleRow>> {
        self.0
            .all(
                "SELECT brand, state, changed_at, changed_by, surface, reason_code FROM brand_lifecycle WHERE tenant_id = ?1",
                args![tenant],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(LifecycleRow {
                    brand: r.text(0)?,
                    state: r.text(1)?,
                    changed_at: r.text(2)?,
                    changed_by: r.text(3)?,
                    surface: r.text(4)?,
                    reason_code: r.opt_text(5)?,
                })
            })
            .collect()
    }

    /// Moves `brand` to `state` (a brand never changed is `active`) and records `e` (its
    /// day set to the change's) in the same transaction; a brand already there changes
    /// nothing.
    pub async fn set_lifecycle(
        &self,
        tenant: &str,
        brand: &str,
        state: &str,
        reason_code: Option<String>,
        e: NewEvent,
        by: Author,
    ) -> Result<LifecycleSet> {
        let (tenant, brand, state) = (tenant.to_owned(), brand.to_owned(), state.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let lock = tx.for_update();
                    let current = tx
                        .one(
                            format!("SELECT state, changed_at FROM brand_lifecycle WHERE tenant_id = ?1 AND brand = ?2{lock}"),
                            args![tenant.as_str(), brand.as_str()],
                        )
                        .await?;
                    let (now_state, since) = match &current {
                        Some(r) => (r.text(0)?, Some(r.text(1)?)),
                        None => ("active".to_owned(), None),
                    };
                    if now_state == state {
                        return Ok(LifecycleSet::Unchanged { at: since });
                    }
                    let at = now_rfc3339();
                    let n = tx
                        .exec(
                            "INSERT INTO brand_lifecycle (tenant_id, brand, state, changed_at, changed_by, surface, reason_code) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                             ON CONFLICT (tenant_id, brand) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at, changed_by = excluded.changed_by, surface = excluded.surface, reason_code = excluded.reason_code
                             WHERE brand_lifecycle.state = ?8",
                            args![tenant.as_str(), brand.as_str(), state.as_str(), at.as_str(), by.actor.as_str(), by.surface.as_str(), reason_code, now_state.as_str()],
                        )
                        .await?;
                    if n == 0 {
                        // another instance changed it first (a first change races on no row)
                        return Ok(LifecycleSet::Unchanged { at: None });
                    }
                    let e = NewEvent { occurred_on: at[..10].to_owned(), ..e };
                    let event_id = insert(tx, &tenant, &e, &by).await?;
                    Ok(LifecycleSet::Changed { at, event_id })
                })
            })
            .await
    }
}
