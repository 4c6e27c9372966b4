//! Clean-room audience SQL (docs/writes.md, "Clean-room audiences"), checked before anything is sent: no trailing
//! semicolon, a refresh of 0 to 21 days, and no interval date arithmetic (the window sent is
//! the lookback, applied before the SQL, so the SQL carries no date filter). The paid-dataset
//! rule needs the instance and its data sources; `service::audiences` reads them and uses
//! [`identifiers`] to find the tables a query names. Code is told from strings and comments by
//! the warehouse's lexer (`pp_warehouse::code_words`).

use pp_warehouse::{Dialect, code_words, ends_with_terminator};
use serde_json::Value;

use super::rules::Problem;

/// The audience refresh, in days (docs/limits.md).
pub const REFRESH_DAYS: std::ops::RangeInclusive<i64> = 0..=21;

/// Functions that do date arithmetic by interval (upper-cased, as the lexer gives words).
const DATE_ARITHMETIC: &[&str] = &["DATE_ADD", "DATE_SUB", "DATEADD", "DATEDIFF", "ADD_MONTHS"];

/// The clean room's SQL quotes and comments as PostgreSQL writes them (`'text'`, `"name"`,
/// `--` and `/* */`).
const DIALECT: Dialect = Dialect::Postgres;

/// The lower-case words of the SQL's code (names of tables, columns, keywords, functions);
/// strings, quoted names and comments left out.
pub fn identifiers(sql: &str) -> Vec<String> {
    code_words(sql, DIALECT)
        .into_iter()
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

fn problem(field: &str, rule: &'static str, message: String) -> Problem {
    Problem {
        field: field.into(),
        rule,
        message,
    }
}

/// The text rules' problems with one audience item.
pub fn problems(item: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    if let Some(sql) = item["query"].as_str() {
        if ends_with_terminator(sql, DIALECT) {
            out.push(problem(
                "query",
                "trailing_semicolon",
                "the audience query ends with a semicolon, which the clean room refuses: remove it"
                    .into(),
            ));
        }
        let words = code_words(sql, DIALECT);
        if let Some(w) = words
            .iter()
            .find(|w| *w == "INTERVAL" || DATE_ARITHMETIC.contains(&w.as_str()))
        {
            out.push(problem(
                "query",
                "interval_arithmetic",
                format!(
                    "the audience query does date arithmetic ({w}): the window sent is the lookback, applied before the SQL, so leave date filters out of the query"
                ),
            ));
        }
    } else if !item["query"].is_null() {
        out.push(problem(
            "query",
            "required",
            "query must be SQL text".into(),
        ));
    }
    let refresh = &item["refreshRateDays"];
    if !refresh.is_null() && !refresh.as_i64().is_some_and(|d| REFRESH_DAYS.contains(&d)) {
        out.push(problem(
            "refreshRateDays",
            "refresh_range",
            format!("refreshRateDays is {refresh}: an audience refreshes every 0 to 21 days (whole days)"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(item: Value) -> Vec<&'static str> {
        problems(&item).iter().map(|p| p.rule).collect()
    }

    #[test]
    fn audience_sql_is_refused_for_each_rule_and_only_in_code() {
        let ok = "SELECT user_id FROM conversions_for_audiences WHERE event_subtype = 'cart;'";
        assert!(rules(json!({ "query": ok, "refreshRateDays": 7 })).is_empty());
        assert_eq!(
            rules(json!({ "query": format!("{ok};  ") })),
            ["trailing_semicolon"]
        );
        assert_eq!(
            rules(json!({ "query": format!("{ok}; -- done") })),
            ["trailing_semicolon"]
        );
        assert!(
            rules(json!({ "query": "SELECT 'interval' AS x -- INTERVAL\nFROM t_for_audiences" }))
                .is_empty()
        );
        assert_eq!(
            rules(
                json!({ "query": "SELECT user_id FROM t_for_audiences WHERE event_dt > now() - INTERVAL '30' DAY" })
            ),
            ["interval_arithmetic"]
        );
        assert_eq!(
            rules(
                json!({ "query": "SELECT user_id FROM t_for_audiences WHERE event_dt > DATE_ADD('day', -30, now())" })
            ),
            ["interval_arithmetic"]
        );
        assert_eq!(
            rules(json!({ "query": ok, "refreshRateDays": 22 })),
            ["refresh_range"]
        );
        assert_eq!(
            rules(json!({ "query": ok, "refreshRateDays": -1 })),
            ["refresh_range"]
        );
        assert_eq!(
            rules(json!({ "query": ok, "refreshRateDays": 1.5 })),
            ["refresh_range"]
        );
        assert!(rules(json!({ "query": ok, "refreshRateDays": 0 })).is_empty());
        assert!(
            identifiers("SELECT a FROM \"Quoted\" JOIN audience_segments_inmarket_for_audiences s")
                .contains(&"audience_segments_inmarket_for_audiences".to_owned())
        );
    }
}
