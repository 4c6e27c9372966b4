//! Warehouse tools (full read set + `sql:query`): `legacy_query`, `warehouse_list_tables`,
//! `warehouse_describe_table`. Results are capped far below the REST caps so a client's context
//! is never flooded; a capped result says so and how to get the rest.

use pp_core::Scope;
use pp_warehouse::Limits;
use serde_json::{Value, json};

use super::{Args, Ctx, Fut, READ, Tool};
use crate::routes::warehouse::parse_query;

/// The scopes raw SQL needs: the full read set plus `sql:query`.
pub const SQL: &[Scope] = &[
    Scope::AccountRead,
    Scope::RetailRead,
    Scope::AdsRead,
    Scope::BrandAnalyticsRead,
    Scope::SqlQuery,
];

/// Rows a `legacy_query` result holds unless the call asks for fewer or more.
pub const DEFAULT_ROWS: u64 = 100;
/// Most rows a `legacy_query` result holds.
pub const MAX_ROWS: u64 = 1000;
/// Most bytes of row data a `legacy_query` result holds.
pub const MAX_BYTES: usize = 256 * 1024;

pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "legacy_query",
            title: "Run read-only SQL on the warehouse",
            description: "Runs one read-only SQL statement (SQLite dialect) on the tenant's analytics \
warehouse and returns columns and rows. Traps: only SELECT/WITH run (writes, ATTACH and PRAGMA \
changes are refused); one statement per call; the result holds at most maxRows rows (default 100, \
up to 1000) and 256 KiB — when `truncated` is true, page with ORDER BY <key> LIMIT/OFFSET or \
aggregate in SQL instead of fetching raw rows. Column names are the warehouse's own (see \
warehouse_list_tables and warehouse_describe_table); dates are ISO text; money is in the \
marketplace's currency, never converted. Bind values with `params` (array for ?, object for :name) \
rather than pasting them into the SQL.",
            needs: SQL,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "sql": { "type": "string", "description": "One SELECT or WITH statement." },
                        "params": {
                            "description": "Values bound to ? (array) or :name (object) placeholders.",
                            "type": ["array", "object"]
                        },
                        "queryTimeoutMs": { "type": "integer", "minimum": 1, "maximum": 120000, "description": "Stop the query after this long (default 30000)." },
                        "maxRows": { "type": "integer", "minimum": 1, "maximum": MAX_ROWS, "description": "Most rows to return (default 100)." }
                    },
                    "required": ["sql"],
                    "additionalProperties": false
                })
            },
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": {
                        "columns": { "type": "array", "items": { "type": "object" } },
                        "rows": { "type": "array", "items": { "type": "object" } },
                        "rowCount": { "type": "integer" },
                        "truncated": { "type": "boolean" },
                        "truncation": { "type": "object" },
                        "next": { "type": "string" },
                        "durationMs": { "type": "integer" }
                    },
                    "required": ["columns", "rows", "rowCount", "truncated"]
                })
            }),
            hints: READ,
            run: legacy_query,
        },
        Tool {
            name: "warehouse_list_tables",
            title: "List warehouse tables",
            description: "Lists the tables and views of the tenant's analytics warehouse (name and \
type). Use warehouse_describe_table for a table's columns and indexes before writing SQL; the \
reference of every table is also in the service's docs/warehouse.md.",
            needs: SQL,
            input: || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": { "tables": { "type": "array", "items": { "type": "object" } } },
                    "required": ["tables"]
                })
            }),
            hints: READ,
            run: list_tables,
        },
        Tool {
            name: "warehouse_describe_table",
            title: "Describe a warehouse table",
            description: "Describes one table or view of the warehouse: its columns with declared \
types, and its indexes (filter and join on indexed columns — marketplace and date columns — to \
keep queries fast). Names are case-sensitive as listed by warehouse_list_tables.",
            needs: SQL,
            input: || {
                json!({
                    "type": "object",
                    "properties": { "table": { "type": "string", "description": "A name from warehouse_list_tables." } },
                    "required": ["table"],
                    "additionalProperties": false
                })
            },
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": { "table": { "type": "object" } },
                    "required": ["table"]
                })
            }),
            hints: READ,
            run: describe_table,
        },
    ]
}

fn legacy_query<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["sql", "params", "queryTimeoutMs", "maxRows"])?;
        let max_rows = args.int("maxRows", 1, MAX_ROWS)?.unwrap_or(DEFAULT_ROWS);
        let mut body = args.map().clone();
        body.remove("maxRows");
        let req = parse_query(&body, &ctx.app)?;
        let limits = Limits {
            max_rows: max_rows as usize,
            max_bytes: MAX_BYTES,
            ..ctx.app.limits.clone()
        };
        let engine = ctx.app.warehouse_for(&ctx.principal)?;
        let result = engine.query(req, &limits).await?;
        let mut out = serde_json::to_value(&result).map_err(pp_core::Error::internal)?;
        if result.truncated {
            out["next"] = Value::String(format!(
                "Only the first {} rows are here. For the rest, add ORDER BY <key> LIMIT {} OFFSET {} \
                 (then the next offset), raise maxRows (up to {MAX_ROWS}), or aggregate in SQL.",
                result.row_count, result.row_count, result.row_count
            ));
        }
        Ok(out)
    })
}

fn list_tables<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&[])?;
        let tables = ctx.app.warehouse_for(&ctx.principal)?.tables().await?;
        Ok(json!({ "tables": tables }))
    })
}

fn describe_table<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["table"])?;
        let name = args.required("table")?;
        let table = ctx
            .app
            .warehouse_for(&ctx.principal)?
            .describe(name)
            .await?;
        Ok(json!({ "table": table }))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn sql_tools_need_exactly_the_rest_sql_scopes() {
        assert_eq!(super::SQL.to_vec(), pp_core::scope::sql_scopes());
    }
}
