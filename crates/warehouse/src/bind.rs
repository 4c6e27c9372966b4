//! Binding a request's params to the placeholders of its SQL for the server engines, with the
//! same rules and messages as the embedded engine: `?` (and `$1` on PostgreSQL) take the
//! positional array in order, `:name`, `@name` and `$name` the named object, and every
//! placeholder needs a value and every value a placeholder.
//!
//! MySQL gets its `?`s with the values in order. PostgreSQL gets the values written into the
//! statement as literals (client-side binding, as psycopg does): PostgreSQL types a bound
//! parameter by the value sent, so a text date against a `DATE` column would fail, while a
//! quoted literal takes the column's type. Text is quoted with `'` doubled under
//! `standard_conforming_strings`, which the engine sets on every session.

use pp_core::{Error, Result};

use crate::dialect::Dialect;
use crate::lex::{Kind, Placeholder, tokens};
use crate::params::{Params, Scalar};

/// A placeholder's byte range and the value it takes.
type Slot = (usize, usize, Scalar);

fn count_error(expected: usize, sent: Option<usize>) -> Error {
    match sent {
        None => Error::invalid_request(format!(
            "the sql has {expected} placeholder(s) but no params were sent"
        )),
        Some(n) => Error::invalid_request(format!(
            "the sql has {expected} placeholder(s) but {n} params were sent"
        )),
    }
}

/// The placeholders of `sql` and their values. On MySQL an `@name` is a user variable unless
/// the named params hold `name`.
fn resolve(sql: &str, dialect: Dialect, params: &Params) -> Result<Vec<Slot>> {
    let mut found: Vec<(usize, usize, Placeholder)> = Vec::new();
    for t in tokens(sql, dialect) {
        if let Kind::Param(p) = t.kind {
            let at = sql.as_bytes()[t.start];
            let user_variable = dialect == Dialect::MySql
                && at == b'@'
                && !matches!((&p, params), (Placeholder::Named(n), Params::Named(v)) if v.iter().any(|(k, _)| k == n));
            if !user_variable {
                found.push((t.start, t.end, p));
            }
        }
    }
    match params {
        Params::Named(values) => named(sql, &found, values),
        Params::None if found.is_empty() => Ok(Vec::new()),
        Params::None => Err(count_error(positions(&found).1, None)),
        Params::Positional(values) => {
            let (index, expected) = positions(&found);
            if values.len() != expected {
                return Err(count_error(expected, Some(values.len())));
            }
            Ok(found
                .iter()
                .zip(index)
                .map(|((s, e, _), i)| (*s, *e, values[i - 1].clone()))
                .collect())
        }
    }
}

/// Each placeholder's 1-based position and how many positions there are: `?` takes the next,
/// `$n` the nth, and a repeated name its first position.
fn positions(found: &[(usize, usize, Placeholder)]) -> (Vec<usize>, usize) {
    let (mut max, mut names): (usize, Vec<(&str, usize)>) = (0, Vec::new());
    let index = found
        .iter()
        .map(|(_, _, p)| match p {
            Placeholder::Next => {
                max += 1;
                max
            }
            Placeholder::Numbered(n) => {
                max = max.max(*n);
                *n
            }
            Placeholder::Named(name) => match names.iter().find(|(k, _)| k == name) {
                Some((_, i)) => *i,
                None => {
                    max += 1;
                    names.push((name, max));
                    max
                }
            },
        })
        .collect();
    (index, max)
}

fn named(
    sql: &str,
    found: &[(usize, usize, Placeholder)],
    values: &[(String, Scalar)],
) -> Result<Vec<Slot>> {
    let mut used = vec![false; values.len()];
    let mut out = Vec::with_capacity(found.len());
    for (s, e, p) in found {
        let Placeholder::Named(name) = p else {
            return Err(Error::invalid_request(
                "the sql uses ? placeholders; send params as an array",
            ));
        };
        let Some(pos) = values.iter().position(|(k, _)| k == name) else {
            return Err(Error::invalid_request(format!(
                "params has no value for {}",
                &sql[*s..*e]
            )));
        };
        used[pos] = true;
        out.push((*s, *e, values[pos].1.clone()));
    }
    if let Some(pos) = used.iter().position(|u| !u) {
        return Err(Error::invalid_request(format!(
            "params.{} matches no placeholder in the sql",
            values[pos].0
        )));
    }
    Ok(out)
}

/// `sql` with each placeholder replaced by `render` of its value.
fn rewrite(
    sql: &str,
    slots: &[Slot],
    mut render: impl FnMut(&Scalar) -> Result<String>,
) -> Result<String> {
    let mut out = String::with_capacity(sql.len() + 16 * slots.len());
    let mut from = 0;
    for (s, e, v) in slots {
        out.push_str(&sql[from..*s]);
        out.push_str(&render(v)?);
        from = *e;
    }
    out.push_str(&sql[from..]);
    Ok(out)
}

/// A PostgreSQL literal for `v`. Each starts with a blank, so it can never join the word
/// before it (`E` or `U&` would change how the quotes read), and negative numbers are in
/// parentheses, so `1-?` never becomes a `--` comment.
fn pg_literal(v: &Scalar) -> Result<String> {
    Ok(match v {
        Scalar::Null => " NULL".into(),
        Scalar::Int(i) if *i < 0 => format!(" ({i})"),
        Scalar::Int(i) => format!(" {i}"),
        Scalar::Real(f) if !f.is_finite() => {
            return Err(Error::invalid_request("a number param must be finite"));
        }
        Scalar::Real(f) => format!(" ({f:?})"),
        Scalar::Text(t) if t.contains('\0') => {
            return Err(Error::invalid_request(
                "a text param holds a NUL character, which PostgreSQL text cannot hold",
            ));
        }
        Scalar::Text(t) => format!(" '{}'", t.replace('\'', "''")),
    })
}

/// The statement PostgreSQL runs: every placeholder written as a literal.
pub fn postgres(sql: &str, params: &Params) -> Result<String> {
    let slots = resolve(sql, Dialect::Postgres, params)?;
    rewrite(sql, &slots, pg_literal)
}

/// The statement MySQL prepares (every placeholder a `?`) and the values in order.
pub fn mysql(sql: &str, params: &Params) -> Result<(String, Vec<Scalar>)> {
    let slots = resolve(sql, Dialect::MySql, params)?;
    let text = rewrite(sql, &slots, |_| Ok("?".into()))?;
    Ok((text, slots.into_iter().map(|(_, _, v)| v).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: serde_json::Value) -> Params {
        Params::from_json(Some(&v)).unwrap()
    }

    #[test]
    fn postgres_literals() {
        assert_eq!(
            postgres(
                "SELECT * FROM t WHERE a = ? AND b = ? AND c = 1-? AND d = ?",
                &p(json!(["it's", 2, -3, 1.5]))
            )
            .unwrap(),
            "SELECT * FROM t WHERE a =  'it''s' AND b =  2 AND c = 1- (-3) AND d =  (1.5)"
        );
        assert_eq!(
            postgres("SELECT :a, E?, :a", &p(json!({"a": null})))
                .unwrap_err()
                .message(),
            "the sql uses ? placeholders; send params as an array"
        );
        assert_eq!(
            postgres("SELECT :a, :a::int, $1", &p(json!([7]))).unwrap(),
            "SELECT  7,  7::int,  7"
        );
        assert_eq!(
            postgres("SELECT E?", &p(json!(["\\' OR 1=1"]))).unwrap(),
            "SELECT E '\\'' OR 1=1'"
        );
    }

    #[test]
    fn counts_and_names() {
        let msg = |sql: &str, v| postgres(sql, &p(v)).unwrap_err().message().to_owned();
        assert_eq!(
            msg("SELECT ?, ?", json!([1])),
            "the sql has 2 placeholder(s) but 1 params were sent"
        );
        assert_eq!(
            msg("SELECT :a", json!({"b": 1})),
            "params has no value for :a"
        );
        assert_eq!(
            msg("SELECT :a", json!({"a": 1, "b": 2})),
            "params.b matches no placeholder in the sql"
        );
        assert_eq!(
            postgres("SELECT ?", &Params::None).unwrap_err().message(),
            "the sql has 1 placeholder(s) but no params were sent"
        );
    }

    #[test]
    fn mysql_order_and_user_variables() {
        let (sql, values) = mysql("SELECT :b, @v, :a, :b", &p(json!({"a": 1, "b": "x"}))).unwrap();
        assert_eq!(sql, "SELECT ?, @v, ?, ?");
        assert_eq!(
            values,
            vec![
                Scalar::Text("x".into()),
                Scalar::Int(1),
                Scalar::Text("x".into())
            ]
        );
    }
}
