//! The schema both engines reach: a fresh SQLite store and a fresh PostgreSQL one hold the same
//! tables, the same columns (name, type family, nullability, whether they have a default), the
//! same primary keys, unique constraints, named indexes (columns, unique, partial), foreign keys
//! and triggers (table and event), read back from each engine's own catalog. A step changed for
//! one engine alone shows here. And every step applies on top of the store the steps before it
//! left, as an older release leaves it, on both engines.

use std::collections::{BTreeMap, BTreeSet};

use pp_store::{StateUrl, Store};
use sqlx::Row;

use crate::scratch_db::ScratchDb;

/// One table as an engine's catalog describes it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Table {
    /// (name, type family, NOT NULL, has a default), in order.
    columns: Vec<(String, &'static str, bool, bool)>,
    primary_key: Vec<String>,
    unique: BTreeSet<Vec<String>>,
    /// Named (`CREATE INDEX`) indexes: columns, unique, partial.
    indexes: BTreeMap<String, (Vec<String>, bool, bool)>,
    /// (column, table, column) of each reference.
    foreign_keys: BTreeSet<(String, String, String)>,
    /// The events a trigger follows (`UPDATE`, `DELETE`).
    triggers: BTreeSet<String>,
}

type Schema = BTreeMap<String, Table>;

/// A declared type's family, as both engines store it.
fn family(ty: &str) -> &'static str {
    match ty.to_ascii_lowercase().as_str() {
        "text" => "text",
        "integer" | "bigint" => "integer",
        "blob" | "bytea" => "bytes",
        "real" | "double precision" => "real",
        other => panic!("a column of type {other}: give it a family here"),
    }
}

fn sqlite_schema(file: &std::path::Path) -> Schema {
    let c = rusqlite::Connection::open(file).unwrap();
    let strings = |sql: &str, arg: &str| -> Vec<String> {
        let mut st = c.prepare(sql).unwrap();
        st.query_map([arg], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let mut schema = Schema::new();
    let names = strings(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ?1",
        "",
    );
    for name in names {
        let mut t = Table::default();
        let mut st = c
            .prepare("SELECT name, type, \"notnull\", dflt_value IS NOT NULL, pk FROM pragma_table_info(?1) ORDER BY cid")
            .unwrap();
        let mut pk: Vec<(i64, String)> = Vec::new();
        let cols = st
            .query_map([&name], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            })
            .unwrap();
        for col in cols {
            let (n, ty, not_null, default, key) = col.unwrap();
            if key > 0 {
                pk.push((key, n.clone()));
            }
            // a key column cannot be NULL on PostgreSQL, whatever it declares
            t.columns
                .push((n, family(&ty), not_null || key > 0, default));
        }
        pk.sort();
        t.primary_key = pk.into_iter().map(|(_, n)| n).collect();
        let mut st = c
            .prepare("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)")
            .unwrap();
        let indexes: Vec<(String, bool, String, bool)> = st
            .query_map([&name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (index, unique, origin, partial) in indexes {
            let cols = strings(
                "SELECT name FROM pragma_index_info(?1) ORDER BY seqno",
                &index,
            );
            match origin.as_str() {
                "c" => {
                    t.indexes.insert(index, (cols, unique, partial));
                }
                "u" => {
                    t.unique.insert(cols);
                }
                _ => {}
            }
        }
        let mut st = c
            .prepare("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1)")
            .unwrap();
        t.foreign_keys = st
            .query_map([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        schema.insert(name, t);
    }
    let triggers = strings(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name <> ?1",
        "",
    );
    for sql in triggers {
        let words: Vec<&str> = sql.split_whitespace().collect();
        // CREATE TRIGGER name AFTER|BEFORE event [OF columns] ON table …
        let on = words.iter().position(|w| *w == "ON").unwrap();
        let event = words[4];
        let table = schema.get_mut(words[on + 1]).unwrap();
        table.triggers.insert(event.into());
    }
    schema
}

async fn postgres_schema(url: &str) -> Schema {
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'schema_version'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut schema = Schema::new();
    for name in names {
        let mut t = Table::default();
        let cols = sqlx::query(
            "SELECT column_name::text, data_type::text, is_nullable = 'NO', column_default IS NOT NULL
             FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap();
        for r in cols {
            let (n, ty): (String, String) = (r.get(0), r.get(1));
            t.columns.push((n, family(&ty), r.get(2), r.get(3)));
        }
        // constraints and indexes, each with its columns in order
        let indexes = sqlx::query(
            "SELECT c.relname::text, i.indisprimary, i.indisunique, i.indpred IS NOT NULL,
                    EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid),
                    array_agg(a.attname::text ORDER BY k.ord)
             FROM pg_index i
             JOIN pg_class c ON c.oid = i.indexrelid
             JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
             WHERE i.indrelid = ('public.' || quote_ident($1))::regclass
             GROUP BY c.relname, i.indisprimary, i.indisunique, i.indpred, i.indexrelid",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap();
        for r in indexes {
            let (index, primary, unique, partial, constraint): (String, bool, bool, bool, bool) =
                (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4));
            let cols: Vec<String> = r.get(5);
            if primary {
                t.primary_key = cols;
            } else if constraint {
                t.unique.insert(cols);
            } else {
                t.indexes.insert(index, (cols, unique, partial));
            }
        }
        let fks = sqlx::query(
            "SELECT a.attname::text, f.relname::text, fa.attname::text
             FROM pg_constraint k
             JOIN pg_class f ON f.oid = k.confrelid
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
             JOIN pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[1]
             WHERE k.contype = 'f' AND k.conrelid = ('public.' || quote_ident($1))::regclass",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap();
        t.foreign_keys = fks.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
        let triggers: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT event_manipulation::text FROM information_schema.triggers WHERE event_object_table = $1",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap();
        t.triggers = triggers.into_iter().collect();
        schema.insert(name, t);
    }
    pool.close().await;
    schema
}

/// Where a table's two descriptions part, one line each.
fn differences(sqlite: &Schema, postgres: &Schema) -> Vec<String> {
    let names: BTreeSet<&String> = sqlite.keys().chain(postgres.keys()).collect();
    let mut out = Vec::new();
    for n in names {
        match (sqlite.get(n), postgres.get(n)) {
            (Some(a), Some(b)) if a != b => {
                out.push(format!("{n}:\n  sqlite   {a:?}\n  postgres {b:?}"))
            }
            (Some(_), None) => out.push(format!("{n}: only on SQLite")),
            (None, Some(_)) => out.push(format!("{n}: only on PostgreSQL")),
            _ => {}
        }
    }
    out
}

#[tokio::test]
async fn both_engines_reach_the_same_schema() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let sqlite = sqlite_schema(&dir.path().join("state.sqlite"));
    assert!(sqlite.len() > 40, "{} tables", sqlite.len());
    assert!(
        sqlite["jobs"].indexes.contains_key("jobs_ready"),
        "{:?}",
        sqlite["jobs"]
    );
    assert!(
        sqlite["report_ledger"].indexes["report_ledger_key"].2,
        "a partial index reads as one"
    );
    assert!(sqlite["credentials"].triggers.contains("DELETE"));
    let Some(db) = ScratchDb::create("pp_migrations").await else {
        return;
    };
    let url = StateUrl::parse(&db.url, dir.path()).unwrap();
    drop(Store::connect(&url, dir.path()).await.unwrap());
    let postgres = postgres_schema(&db.url).await;
    let found = differences(&sqlite, &postgres);
    assert!(
        found.is_empty(),
        "the engines' schemas part (a step changed for one engine alone?):\n{}",
        found.join("\n")
    );
}

/// The catalog comparison sees what a step changed for one engine alone would change.
#[test]
fn the_comparison_sees_one_engine_changed_alone() {
    let mut a = Schema::new();
    let table = Table {
        columns: vec![("id".into(), "text", true, false)],
        primary_key: vec!["id".into()],
        ..Table::default()
    };
    a.insert("t".into(), table);
    let same = |s: &Schema| s.clone();
    assert!(differences(&a, &same(&a)).is_empty());
    let mut b = same(&a);
    b.get_mut("t")
        .unwrap()
        .indexes
        .insert("t_id".into(), (vec!["id".into()], false, false));
    assert_eq!(differences(&a, &b).len(), 1);
    let mut b = same(&a);
    b.get_mut("t").unwrap().triggers.insert("DELETE".into());
    assert_eq!(differences(&a, &b).len(), 1);
    let mut b = same(&a);
    b.insert("u".into(), Table::default());
    assert_eq!(differences(&a, &b), ["u: only on PostgreSQL"]);
}

/// A store an older release left at step `n` (the first `n` steps, its version recorded as
/// that release recorded it), then opened by this one: every later step applies over it.
#[tokio::test]
async fn every_step_applies_over_the_store_the_steps_before_it_left() {
    let sqlite_steps = pp_store::migrations::rendered(false);
    let pg_steps = pp_store::migrations::rendered(true);
    let last = sqlite_steps.len();
    for n in 0..last {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("state.sqlite");
        {
            let c = rusqlite::Connection::open(&file).unwrap();
            for sql in &sqlite_steps[..n] {
                c.execute_batch(sql).unwrap();
            }
            c.execute_batch(&format!("PRAGMA user_version = {n}"))
                .unwrap();
        }
        drop(Store::open(dir.path()).unwrap_or_else(|e| panic!("over step {n}: {e:?}")));
        let c = rusqlite::Connection::open(&file).unwrap();
        let version: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version as usize, last, "SQLite over step {n}");
    }
    // PostgreSQL: the release before this one (every step but the newest), and the first
    for n in [last - 1, 1] {
        let Some(db) = ScratchDb::create("pp_migrations").await else {
            return;
        };
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        sqlx::raw_sql("CREATE TABLE schema_version (version BIGINT NOT NULL)")
            .execute(&pool)
            .await
            .unwrap();
        for (i, sql) in pg_steps[..n].iter().enumerate() {
            sqlx::raw_sql(sql).execute(&pool).await.unwrap();
            sqlx::query("INSERT INTO schema_version (version) VALUES ($1)")
                .bind((i + 1) as i64)
                .execute(&pool)
                .await
                .unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let url = StateUrl::parse(&db.url, dir.path()).unwrap();
        drop(
            Store::connect(&url, dir.path())
                .await
                .unwrap_or_else(|e| panic!("over step {n}: {e:?}")),
        );
        let version: i64 = sqlx::query_scalar("SELECT max(version) FROM schema_version")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(version as usize, last, "PostgreSQL over step {n}");
        pool.close().await;
    }
}
