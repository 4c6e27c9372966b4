//! Finds where the first SQL statement ends, skipping string literals, quoted identifiers and
//! comments, so a second statement is refused with a clear kind before anything is prepared.
//! This is a lexer for statement boundaries only; read-only is the engine's job.

/// Whether `sql` holds more than one statement (anything but blanks and comments after the
/// first top-level `;`).
pub fn has_second_statement(sql: &str) -> bool {
    match first_terminator(sql) {
        Some(end) => !only_blanks_and_comments(&sql[end + 1..]),
        None => false,
    }
}

/// Whether `sql` holds no statement at all (only blanks, `;` and comments).
pub fn is_blank(sql: &str) -> bool {
    only_blanks_and_comments(sql)
}

fn first_terminator(sql: &str) -> Option<usize> {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' | b'`' => i = skip_quoted(b, i, b[i]),
            b'[' => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b']')
                    .map_or(b.len(), |p| i + p + 1)
            }
            b'-' if b.get(i + 1) == Some(&b'-') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_block(b, i),
            b';' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn skip_quoted(b: &[u8], start: usize, q: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

fn skip_line(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| start + p + 1)
}

fn skip_block(b: &[u8], start: usize) -> usize {
    b[start + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(b.len(), |p| start + 2 + p + 2)
}

fn only_blanks_and_comments(rest: &str) -> bool {
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() || c == b';' => i += 1,
            b'-' if b.get(i + 1) == Some(&b'-') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_block(b, i),
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::has_second_statement as two;

    #[test]
    fn statement_boundaries() {
        assert!(!two("SELECT 1"));
        assert!(!two("SELECT 1;"));
        assert!(!two("SELECT 1; -- done\n  /* c */ ;"));
        assert!(!two("SELECT 'a;b', \"c;d\", `e;f`, [g;h] -- ;x\n"));
        assert!(!two("SELECT 'it''s; fine'"));
        assert!(two("SELECT 1; SELECT 2"));
        assert!(two("SELECT 1;DELETE FROM seller"));
        assert!(two("SELECT /* ; */ 1; DROP TABLE x"));
    }
}
