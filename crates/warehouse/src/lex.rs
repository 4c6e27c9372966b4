//! A lexer for what the gateway must know of a caller's SQL before an engine sees it: where
//! statements end, where placeholders are, and which words are code rather than text. It
//! knows each dialect's quotes and comments (PostgreSQL's dollar quotes and nested comments,
//! MySQL's `#` comments, backslash escapes and executable `/*! … */` comments) and nothing
//! of SQL's grammar: read-only is the engine's job, never this file's.

use pp_core::{Error, Result};

use crate::dialect::Dialect;

/// A placeholder as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placeholder {
    /// `?`: the next positional value.
    Next,
    /// `$3` (PostgreSQL) or `?3` (SQLite): the third positional value.
    Numbered(usize),
    /// `:name`, `@name` or `$name`, without its sigil.
    Named(String),
}

/// What a stretch of SQL is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Keywords, names, numbers, operators and blanks.
    Code,
    /// A string literal.
    Text,
    /// A quoted identifier.
    Ident,
    /// A comment.
    Comment,
    /// A MySQL comment whose content the server runs (`/*! … */`, `/*M! … */`).
    Executable,
    /// A placeholder.
    Param(Placeholder),
    /// A `;` outside quotes and comments.
    End,
}

/// One stretch of SQL: its kind and byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Splits `sql` into tokens for `dialect`. An unterminated quote or comment runs to the end.
pub fn tokens(sql: &str, dialect: Dialect) -> Vec<Token> {
    Lexer {
        b: sql.as_bytes(),
        d: dialect,
        out: Vec::new(),
        code_from: 0,
    }
    .run()
}

struct Lexer<'a> {
    b: &'a [u8],
    d: Dialect,
    out: Vec<Token>,
    code_from: usize,
}

impl Lexer<'_> {
    fn run(mut self) -> Vec<Token> {
        let mut i = 0;
        while i < self.b.len() {
            i = match self.step(i) {
                Some((kind, end)) => {
                    self.push_code(i);
                    self.out.push(Token {
                        kind,
                        start: i,
                        end,
                    });
                    self.code_from = end;
                    end
                }
                None => i + 1,
            };
        }
        self.push_code(self.b.len());
        self.out
    }

    fn push_code(&mut self, upto: usize) {
        if upto > self.code_from {
            self.out.push(Token {
                kind: Kind::Code,
                start: self.code_from,
                end: upto,
            });
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    fn after_ident(&self, i: usize) -> bool {
        i > 0 && ident_char(self.b[i - 1])
    }

    /// The token starting at `i`, when one does (anything else is code).
    fn step(&self, i: usize) -> Option<(Kind, usize)> {
        let (d, c, next) = (self.d, self.b[i], self.at(i + 1));
        match c {
            b'\'' => Some((Kind::Text, self.quoted(i, b'\'', self.backslashes_at(i)))),
            b'"' if d == Dialect::MySql => Some((Kind::Text, self.quoted(i, b'"', true))),
            b'"' => Some((Kind::Ident, self.quoted(i, b'"', false))),
            b'`' if d != Dialect::Postgres => Some((Kind::Ident, self.quoted(i, b'`', false))),
            b'[' if d == Dialect::Sqlite => {
                Some((Kind::Ident, self.until(i + 1, b"]").unwrap_or(self.b.len())))
            }
            b'-' if next == Some(b'-') && self.dash_comment(i) => {
                Some((Kind::Comment, self.line(i)))
            }
            b'#' if d == Dialect::MySql => Some((Kind::Comment, self.line(i))),
            b'/' if next == Some(b'*') => Some(self.block(i)),
            b'$' if d == Dialect::Postgres && !self.after_ident(i) => self.dollar(i),
            b';' => Some((Kind::End, i + 1)),
            b'?' => Some(self.question(i)),
            b':' | b'@' | b'$' => self.named(i),
            _ => None,
        }
    }

    /// Whether a `'` string at `i` treats backslash as an escape: always on MySQL, and for
    /// PostgreSQL's `E'…'` strings.
    fn backslashes_at(&self, i: usize) -> bool {
        match self.d {
            Dialect::MySql => true,
            Dialect::Postgres => {
                i > 0
                    && matches!(self.b[i - 1], b'E' | b'e')
                    && !(i > 1 && ident_char(self.b[i - 2]))
            }
            Dialect::Sqlite => false,
        }
    }

    fn quoted(&self, start: usize, q: u8, backslash: bool) -> usize {
        let mut i = start + 1;
        while i < self.b.len() {
            match self.b[i] {
                b'\\' if backslash => i += 2,
                c if c == q && self.at(i + 1) == Some(q) => i += 2,
                c if c == q => return i + 1,
                _ => i += 1,
            }
        }
        self.b.len()
    }

    fn until(&self, from: usize, end: &[u8]) -> Option<usize> {
        self.b
            .get(from..)?
            .windows(end.len())
            .position(|w| w == end)
            .map(|p| from + p + end.len())
    }

    /// MySQL needs a blank (or the end) after `--` for a comment; the others do not.
    fn dash_comment(&self, i: usize) -> bool {
        self.d != Dialect::MySql || self.at(i + 2).is_none_or(|c| c.is_ascii_whitespace())
    }

    fn line(&self, i: usize) -> usize {
        self.until(i, b"\n").unwrap_or(self.b.len())
    }

    fn block(&self, i: usize) -> (Kind, usize) {
        let rest = &self.b[i + 2..];
        let executable =
            self.d == Dialect::MySql && (rest.starts_with(b"!") || rest.starts_with(b"M!"));
        let end = if self.d == Dialect::Postgres {
            self.nested_block(i)
        } else {
            self.until(i + 2, b"*/").unwrap_or(self.b.len())
        };
        let kind = if executable {
            Kind::Executable
        } else {
            Kind::Comment
        };
        (kind, end)
    }

    /// PostgreSQL block comments nest.
    fn nested_block(&self, start: usize) -> usize {
        let (mut depth, mut i) = (0usize, start);
        while i + 1 < self.b.len() {
            match (self.b[i], self.b[i + 1]) {
                (b'/', b'*') => {
                    depth += 1;
                    i += 2;
                }
                (b'*', b'/') => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        return i;
                    }
                }
                _ => i += 1,
            }
        }
        self.b.len()
    }

    /// `$tag$ … $tag$` quoting, or a `$1` / `$name` placeholder.
    fn dollar(&self, i: usize) -> Option<(Kind, usize)> {
        let tag_len = self.b[i + 1..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
            .unwrap_or(self.b.len() - i - 1);
        let after = i + 1 + tag_len;
        let digits_first = self.at(i + 1).is_some_and(|c| c.is_ascii_digit());
        if self.at(after) == Some(b'$') && !digits_first {
            let tag = &self.b[i..=after];
            let end = self.until(after + 1, tag).unwrap_or(self.b.len());
            return Some((Kind::Text, end));
        }
        self.named(i)
    }

    fn question(&self, i: usize) -> (Kind, usize) {
        let digits = self.b[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits > 0
            && self.d == Dialect::Sqlite
            && let Ok(n) = std::str::from_utf8(&self.b[i + 1..i + 1 + digits])
                .unwrap_or("")
                .parse()
        {
            return (Kind::Param(Placeholder::Numbered(n)), i + 1 + digits);
        }
        (Kind::Param(Placeholder::Next), i + 1)
    }

    /// `:name`, `@name`, `$name` and `$3`; a `::` cast, `@>` or a lone sigil is code.
    fn named(&self, i: usize) -> Option<(Kind, usize)> {
        let sigil = self.b[i];
        if sigil == b':' && (self.at(i + 1) == Some(b':') || i > 0 && self.b[i - 1] == b':') {
            return None;
        }
        if self.after_ident(i) && sigil != b':' {
            return None;
        }
        let len = self.b[i + 1..]
            .iter()
            .take_while(|&&c| ident_char(c))
            .count();
        if len == 0 {
            return None;
        }
        let word = std::str::from_utf8(&self.b[i + 1..i + 1 + len]).ok()?;
        let ph = match word.parse::<usize>() {
            Ok(n) if sigil == b'$' => Placeholder::Numbered(n),
            Ok(_) => return None,
            Err(_) if word.as_bytes()[0].is_ascii_digit() => return None,
            Err(_) => Placeholder::Named(word.to_owned()),
        };
        Some((Kind::Param(ph), i + 1 + len))
    }
}

/// Whether `sql` (lexed as `toks`) holds no statement at all (only blanks, `;` and comments).
fn is_blank(sql: &str, toks: &[Token]) -> bool {
    toks.iter().all(|t| match t.kind {
        Kind::Code => sql[t.start..t.end].trim().is_empty(),
        Kind::Comment | Kind::End => true,
        _ => false,
    })
}

/// Whether `sql` (lexed as `toks`) holds more than one statement (anything but blanks and
/// comments after the first top-level `;`).
fn has_second_statement(sql: &str, toks: &[Token]) -> bool {
    let Some(first_end) = toks.iter().position(|t| t.kind == Kind::End) else {
        return false;
    };
    toks[first_end + 1..].iter().any(|t| match t.kind {
        Kind::Code => !sql[t.start..t.end].trim().is_empty(),
        Kind::Comment | Kind::End => false,
        _ => true,
    })
}

/// The statement in `sql` (lexed as `toks`) without its trailing `;`s, blanks and comments
/// (a cursor or a prepared statement takes no terminator).
fn without_terminator<'a>(sql: &'a str, toks: &[Token]) -> &'a str {
    let end = toks
        .iter()
        .rev()
        .find(|t| match t.kind {
            Kind::Code => !sql[t.start..t.end].trim().is_empty(),
            Kind::Comment | Kind::End => false,
            _ => true,
        })
        .map_or(0, |t| t.end);
    sql[..end].trim_end()
}

/// The statement an engine runs, once blank and batched SQL are refused: `invalid_request`
/// for nothing but blanks and comments, `multiple_statements` for a second statement; the
/// trailing `;` is left off. `sql` is lexed once for all three.
pub fn one_statement(sql: &str, dialect: Dialect) -> Result<&str> {
    let toks = tokens(sql, dialect);
    if is_blank(sql, &toks) {
        return Err(Error::invalid_request(
            "sql holds no statement (only blanks or comments)",
        ));
    }
    if has_second_statement(sql, &toks) {
        return Err(Error::new(
            pp_core::Kind::MultipleStatements,
            "the sql holds more than one statement; send one statement per call",
        ));
    }
    Ok(without_terminator(sql, &toks))
}

/// Whether the last thing in `sql`, past blanks and comments, is a `;` (a statement sent on
/// to a service that refuses terminators, such as the clean room's audience SQL).
pub fn ends_with_terminator(sql: &str, dialect: Dialect) -> bool {
    let toks = tokens(sql, dialect);
    toks.iter()
        .rev()
        .find(|t| match t.kind {
            Kind::Code => !sql[t.start..t.end].trim().is_empty(),
            Kind::Comment => false,
            _ => true,
        })
        .is_some_and(|t| t.kind == Kind::End)
}

/// The words of the code parts of `sql`, upper-cased (`INTO`, `OUTFILE`, …).
pub fn code_words(sql: &str, dialect: Dialect) -> Vec<String> {
    tokens(sql, dialect)
        .iter()
        .filter(|t| t.kind == Kind::Code)
        .flat_map(|t| {
            sql[t.start..t.end]
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_uppercase)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Dialect; 3] = [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql];

    /// Whether `one_statement` refuses `sql` as more than one statement.
    fn refused_as_batch(sql: &str, d: Dialect) -> bool {
        one_statement(sql, d).is_err_and(|e| e.kind == pp_core::Kind::MultipleStatements)
    }

    #[test]
    fn statement_boundaries() {
        for d in ALL {
            let two = |s: &str| refused_as_batch(s, d);
            assert!(!two("SELECT 1"), "{d:?}");
            assert!(!two("SELECT 1;"));
            assert!(!two("SELECT 1; -- done\n  /* c */ ;"));
            assert!(!two("SELECT 'a;b' -- ;x\n"));
            assert!(!two("SELECT 'it''s; fine'"));
            assert!(two("SELECT 1; SELECT 2"));
            assert!(two("SELECT 1;DELETE FROM seller"));
            assert!(two("SELECT /* ; */ 1; DROP TABLE x"));
        }
        assert!(!refused_as_batch(
            "SELECT \"c;d\", `e;f`, [g;h]",
            Dialect::Sqlite
        ));
        assert!(!refused_as_batch(
            "SELECT $$a;b$$, $q$;$q$",
            Dialect::Postgres
        ));
        assert!(!refused_as_batch(
            "SELECT /* /* ; */ ; */ 1",
            Dialect::Postgres
        ));
        assert!(!refused_as_batch("SELECT 'a\\';b' # ;\n", Dialect::MySql));
        assert!(refused_as_batch(
            "SELECT 1 --; \n; SELECT 2",
            Dialect::MySql
        ));
        assert!(
            tokens("SELECT 1 /*! ; DROP TABLE t */", Dialect::MySql)
                .iter()
                .any(|t| t.kind == Kind::Executable)
        );
    }

    #[test]
    fn placeholders() {
        let params = |s: &str, d| -> Vec<Placeholder> {
            tokens(s, d)
                .into_iter()
                .filter_map(|t| match t.kind {
                    Kind::Param(p) => Some(p),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            params(
                "SELECT x::date, ? , :a, '?', \"?\" FROM t WHERE y = $2",
                Dialect::Postgres
            ),
            vec![
                Placeholder::Next,
                Placeholder::Named("a".into()),
                Placeholder::Numbered(2)
            ]
        );
        assert_eq!(
            params("SELECT @x, ? -- ?\n # ?\n", Dialect::MySql),
            vec![Placeholder::Named("x".into()), Placeholder::Next]
        );
        assert_eq!(params("SELECT a@>b, $$?$$", Dialect::Postgres), vec![]);
    }

    #[test]
    fn words_and_terminators() {
        assert_eq!(
            code_words("select 'into' INTO outfile", Dialect::MySql),
            ["SELECT", "INTO", "OUTFILE"]
        );
        assert_eq!(
            one_statement("SELECT 1 ; -- x\n", Dialect::Postgres).unwrap(),
            "SELECT 1"
        );
        let blank = one_statement(" ; -- x\n/* y */", Dialect::Postgres).unwrap_err();
        assert!(blank.message().contains("no statement"), "{blank:?}");
        assert_eq!(one_statement("# x\n1", Dialect::MySql).unwrap(), "# x\n1");
    }
}
