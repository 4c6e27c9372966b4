//! Read-only access to the demo world's warehouse: the facts the sandbox serves. A few
//! connections are opened read-only and handed out in turn.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value};

use crate::error::SimError;

/// The world's warehouse.
pub struct World {
    conns: Vec<Mutex<Connection>>,
    next: AtomicUsize,
    /// The last day with data (the day before the world's anchor).
    pub last_day: chrono::NaiveDate,
    /// The world's injected events (`ground-truth.json` beside the warehouse), if present.
    pub events: Vec<Value>,
    /// What the world was generated from (seed, scale, origin and today), read from
    /// `ground-truth.json`: what moving it forward regenerates it with.
    pub spec: Option<pp_world::WorldSpec>,
    /// The world's fee rules (from its spec): what a fee estimate answers.
    pub fees: Option<pp_world::Fees>,
}

/// The spec a ground truth records.
fn spec_of(truth: &Value) -> Option<pp_world::WorldSpec> {
    let day = |k: &str| truth[k].as_str()?.parse::<chrono::NaiveDate>().ok();
    let scale = pp_world::Scale::parse(truth["scale"].as_str()?).ok()?;
    let (first, last) = (day("first_day")?, day("last_day")?);
    let mut spec = pp_world::WorldSpec::new(truth["seed"].as_u64()?, scale, last.succ_opt()?);
    spec.origin = first;
    let fleet = truth.get("fleet").map_or(Some(0), |f| f.as_u64())?;
    Some(spec.with_fleet(fleet as usize))
}

impl World {
    /// The world's today: the day after its last day of data.
    pub fn today(&self) -> chrono::NaiveDate {
        self.last_day.succ_opt().unwrap_or(self.last_day)
    }

    /// Opens `warehouse.sqlite` read-only.
    pub fn open(path: &Path) -> Result<Self, SimError> {
        let mut conns = Vec::new();
        for _ in 0..4 {
            let c = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| {
                SimError::internal(format!("cannot open world {}: {e}", path.display()))
            })?;
            c.execute_batch("PRAGMA query_only = ON; PRAGMA mmap_size = 268435456;")
                .map_err(SimError::internal)?;
            conns.push(Mutex::new(c));
        }
        let w = Self {
            conns,
            next: AtomicUsize::new(0),
            last_day: chrono::NaiveDate::MIN,
            events: Vec::new(),
            spec: None,
            fees: None,
        };
        let truth = std::fs::read(path.with_file_name("ground-truth.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
        let events = truth
            .as_ref()
            .and_then(|v| v["events"].as_array().cloned())
            .unwrap_or_default();
        let spec = truth.as_ref().and_then(spec_of);
        let last: String = w.with(|c| {
            c.query_row(
                "SELECT MAX(Date) FROM spapi_sales_and_traffic_by_date",
                [],
                |r| r.get(0),
            )
        })?;
        let last_day = last
            .parse()
            .map_err(|e| SimError::internal(format!("world has no dates: {e}")))?;
        Ok(Self {
            last_day,
            events,
            fees: spec.as_ref().map(pp_world::Fees::new),
            spec,
            ..w
        })
    }

    /// Runs `f` on one of the connections.
    pub fn with<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, SimError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.conns.len();
        let conn = self.conns[i].lock().unwrap_or_else(|p| p.into_inner());
        f(&conn).map_err(SimError::internal)
    }

    /// Rows of `sql` as JSON objects keyed by column name.
    pub fn rows(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<Map<String, Value>>, SimError> {
        self.with(|c| {
            let mut st = c.prepare_cached(sql)?;
            let names: Vec<String> = st.column_names().iter().map(|s| (*s).to_owned()).collect();
            let rows = st.query_map(params, |r| {
                let mut m = Map::new();
                for (i, n) in names.iter().enumerate() {
                    let v = match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Null => Value::Null,
                        rusqlite::types::ValueRef::Integer(x) => x.into(),
                        rusqlite::types::ValueRef::Real(x) => x.into(),
                        rusqlite::types::ValueRef::Text(t) => {
                            String::from_utf8_lossy(t).into_owned().into()
                        }
                        rusqlite::types::ValueRef::Blob(_) => Value::Null,
                    };
                    m.insert(n.clone(), v);
                }
                Ok(m)
            })?;
            rows.collect()
        })
    }
}

/// A seller (or vendor) of the world in one marketplace.
#[derive(Debug, Clone)]
pub struct Seller {
    pub id: i64,
    pub token: String,
    pub name: String,
    pub account_type: String,
    pub marketplace: String,
    pub marketplace_id: String,
    pub currency: String,
}

impl World {
    /// Every seller row.
    pub fn sellers(&self) -> Result<Vec<Seller>, SimError> {
        self.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT ID, MarketplaceSellerID, Name, AccountType, Marketplace, MarketplaceID, Currency FROM seller ORDER BY ID",
            )?;
            let rows = st.query_map([], |r| {
                Ok(Seller {
                    id: r.get(0)?,
                    token: r.get(1)?,
                    name: r.get(2)?,
                    account_type: r.get(3)?,
                    marketplace: r.get(4)?,
                    marketplace_id: r.get(5)?,
                    currency: r.get(6)?,
                })
            })?;
            rows.collect()
        })
    }

    /// The rows of merchant token `token` (one per marketplace).
    pub fn seller_rows(&self, token: &str) -> Result<Vec<Seller>, SimError> {
        Ok(self
            .sellers()?
            .into_iter()
            .filter(|s| s.token == token)
            .collect())
    }
}
