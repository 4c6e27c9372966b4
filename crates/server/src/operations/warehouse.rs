//! Warehouse SQL (the full read set + `sql:query`): `POST /api/query`, `GET /api/tables`,
//! `GET /api/table/{name}`, and their tools `legacy_query`, `warehouse_list_tables` and
//! `warehouse_describe_table`. Tool results are capped far below the REST caps so a client's
//! context is never flooded; a capped result says so and how to get the rest.

use axum::extract::{Extension, Path, State};
use pp_core::Principal;
use pp_core::scope::SQL_SCOPES;
use pp_warehouse::{Caps, QueryResult, SqlRequest};
use serde_json::{Map, Value, json};

use super::schema::{any, any_object, array, boolean, closed, int, object, string};
use super::{Ctx, Endpoint, Fut, NoArgs, READ, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::render;
use crate::http::tool_text::ToolText;
use crate::state::SharedState;

/// Rows a `legacy_query` result holds unless the call asks for fewer or more.
pub const DEFAULT_ROWS: usize = 100;
/// Most rows a `legacy_query` result holds.
pub const MAX_ROWS: usize = 1000;
/// Most bytes of row data a `legacy_query` result holds.
pub const MAX_BYTES: usize = 256 * 1024;

const TOOL_CAPS: Caps = Caps {
    default_rows: DEFAULT_ROWS,
    max_rows: MAX_ROWS,
    max_bytes: MAX_BYTES,
};

async fn query(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<SqlRequest>,
) -> Result<render::Rendered, ApiError> {
    let caps = app.warehouses.rest_caps();
    Ok(render::api(app.warehouses.query(&p, req, caps).await?)?)
}

async fn tables(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        json!({ "tables": app.warehouses.tables(&p).await? }),
    )?)
}

async fn describe(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(name): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        json!({ "table": app.warehouses.describe(&p, &name).await? }),
    )?)
}

/// The tool's answer, written once: the result, and when it was capped, how to get the rest.
fn with_next(result: &QueryResult) -> pp_core::Result<ToolText> {
    let out = ToolText::of(result)?;
    if !result.truncated {
        return Ok(out);
    }
    let next = format!(
        "Only the first {n} rows are here. For the rest, add ORDER BY <key> LIMIT {n} OFFSET {n} \
         (then the next offset), raise maxRows (up to {MAX_ROWS}), or aggregate in SQL.",
        n = result.row_count
    );
    out.merged(&ToolText::of(&json!({ "next": next }))?)
}

fn legacy_query<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(async move {
        let req: SqlRequest = args(a)?;
        with_next(
            &ctx.app
                .warehouses
                .query(&ctx.principal, req, TOOL_CAPS)
                .await?,
        )
    })
}

fn list_tables<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        args::<NoArgs>(a)?;
        Ok(json!({ "tables": ctx.app.warehouses.tables(&ctx.principal).await? }))
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TableRef {
    table: String,
}

fn describe_table<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let t: TableRef = args(a)?;
        Ok(json!({ "table": ctx.app.warehouses.describe(&ctx.principal, &t.table).await? }))
    })
}

fn result_schema() -> Value {
    object(
        &[
            ("columns", array(any_object())),
            ("rows", array(any_object())),
            ("rowCount", int()),
            ("truncated", boolean()),
            ("truncation", any_object()),
            ("durationMs", int()),
        ],
        &["columns", "rows", "rowCount", "truncated"],
    )
}

fn request_schema(max_rows: usize) -> Value {
    closed(
        &[
            (
                "sql",
                json!({ "type": "string", "description": "One SELECT or WITH statement." }),
            ),
            (
                "params",
                json!({ "description": "Values bound to ? (array) or :name (object) placeholders.", "anyOf": [{ "type": "array" }, { "type": "object" }] }),
            ),
            (
                "queryTimeoutMs",
                json!({ "type": "integer", "minimum": 1, "maximum": 120000, "description": "Stop the query after this long (default 30000)." }),
            ),
            (
                "maxRows",
                json!({ "type": "integer", "minimum": 1, "maximum": max_rows, "description": "Most rows to return." }),
            ),
        ],
        &["sql"],
    )
}

fn tables_schema() -> Value {
    object(
        &[(
            "tables",
            array(object(
                &[("name", string()), ("type", string())],
                &["name", "type"],
            )),
        )],
        &["tables"],
    )
}

fn table_schema() -> Value {
    object(
        &[(
            "table",
            object(
                &[
                    ("name", string()),
                    ("type", string()),
                    ("columns", array(any())),
                    ("indexes", array(any_object())),
                ],
                &["name", "columns", "indexes"],
            ),
        )],
        &["table"],
    )
}

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/api/query", "Read-only SQL against the caller's warehouse", query)
            .needs(SQL_SCOPES)
            .json_body(request_schema(pp_warehouse::Limits::default().max_rows))
            .answers(200, super::schema::api(result_schema()))
            .tool(Tool {
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
                input: request_schema(MAX_ROWS),
                output: Some(result_schema()),
                hints: READ,
                run: legacy_query,
            }),
        Endpoint::get("/api/tables", "Tables and views of the caller's warehouse", tables)
            .needs(SQL_SCOPES)
            .answers(200, super::schema::api(tables_schema()))
            .tool(Tool {
                name: "warehouse_list_tables",
                title: "List warehouse tables",
                description: "Lists the tables and views of the tenant's analytics warehouse (name and \
type). Use warehouse_describe_table for a table's columns and indexes before writing SQL; the \
reference of every table is also in the service's docs/warehouse.md.",
                input: closed(&[], &[]),
                output: Some(tables_schema()),
                hints: READ,
                run: list_tables,
            }),
        Endpoint::get("/api/table/{name}", "Columns and indexes of one table", describe)
            .needs(SQL_SCOPES)
            .path_param("name", string(), "Table name")
            .answers(200, super::schema::api(table_schema()))
            .tool(Tool {
                name: "warehouse_describe_table",
                title: "Describe a warehouse table",
                description: "Describes one table or view of the warehouse: its columns with declared \
types, and its indexes (filter and join on indexed columns — marketplace and date columns — to \
keep queries fast). Names are case-sensitive as listed by warehouse_list_tables.",
                input: closed(&[("table", json!({ "type": "string", "description": "A name from warehouse_list_tables." }))], &["table"]),
                output: Some(table_schema()),
                hints: READ,
                run: describe_table,
            }),
    ]
}
