//! Rows gathered within a query's result caps (most rows, most bytes of row data as JSON),
//! and the truncation the answer states when a cap cuts them: the same for every engine.

use std::time::Instant;

use serde_json::{Map, Value, json};

use crate::engine::{ColumnInfo, QueryResult};
use crate::limits::Limits;

/// A result being gathered.
pub(crate) struct Collected {
    pub columns: Vec<ColumnInfo>,
    rows: Vec<Map<String, Value>>,
    bytes: usize,
    truncation: Option<Value>,
    started: Instant,
}

impl Collected {
    pub fn new(columns: Vec<ColumnInfo>) -> Self {
        Self {
            columns,
            rows: Vec::new(),
            bytes: 0,
            truncation: None,
            started: Instant::now(),
        }
    }

    /// Whether another row may be added; false (and the row cap recorded) once it is reached.
    pub fn room_for_row(&mut self, limits: &Limits) -> bool {
        if self.rows.len() >= limits.max_rows {
            self.truncation = Some(json!({ "reason": "max_rows", "limit": limits.max_rows }));
            return false;
        }
        true
    }

    /// Charges one value of `bytes` (its column name included); false (and the byte cap
    /// recorded) once the row data passes the cap.
    pub fn charge(&mut self, limits: &Limits, bytes: usize) -> bool {
        self.bytes += bytes;
        if self.bytes > limits.max_bytes {
            self.truncation = Some(json!({ "reason": "max_bytes", "limit": limits.max_bytes }));
            return false;
        }
        true
    }

    /// Adds a row whose values were charged.
    pub fn push(&mut self, row: Map<String, Value>) {
        self.rows.push(row);
    }

    /// Adds a row of values in column order; false once a cap is reached (the row is then
    /// left out).
    pub fn push_values(&mut self, limits: &Limits, values: Vec<Value>) -> bool {
        if !self.room_for_row(limits) {
            return false;
        }
        let mut row = Map::with_capacity(values.len());
        for (i, v) in values.into_iter().enumerate() {
            let name = &self.columns[i].name;
            let size = name.len() + json_len(&v);
            let name = name.clone();
            if !self.charge(limits, size) {
                return false;
            }
            row.insert(name, v);
        }
        self.push(row);
        true
    }

    /// Whether nothing came back.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether a cap cut the rows.
    pub fn capped(&self) -> bool {
        self.truncation.is_some()
    }

    pub fn finish(self) -> QueryResult {
        QueryResult {
            columns: self.columns,
            row_count: self.rows.len(),
            rows: self.rows,
            truncated: self.truncation.is_some(),
            truncation: self.truncation,
            duration_ms: self.started.elapsed().as_millis() as u64,
        }
    }
}

/// About how many bytes `v` takes as JSON.
fn json_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Null => 4,
        Value::Number(_) | Value::Bool(_) => 12,
        other => other.to_string().len(),
    }
}
