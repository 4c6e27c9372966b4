//! A tool's answer, written in one pass both as JSON text and as that text quoted as a JSON
//! string: an MCP tool result carries it both ways (`structuredContent`, and the text content
//! older clients read). Writing the quoted form beside the text, token by token, costs a
//! fraction of quoting the finished text byte by byte, because the tokens that need escaping
//! are known as they are written: each string's quotes and its escapes.

use std::io::{self, Write as _};

use pp_core::{Error, Result};
use serde::Serialize;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

use super::render::{JsonText, merge_objects};

/// A value written as JSON text and as that text quoted.
#[derive(Debug, Clone)]
pub struct ToolText {
    json: JsonText,
    /// The JSON text as one JSON string, quotes included.
    quoted: String,
}

impl ToolText {
    /// `t` serialized, both ways.
    pub fn of(t: &impl Serialize) -> Result<Self> {
        let mut json = Vec::with_capacity(256);
        let mut quoted = Vec::with_capacity(320);
        quoted.push(b'"');
        let mut ser = serde_json::Serializer::with_formatter(
            &mut json,
            Twice {
                quoted: &mut quoted,
            },
        );
        t.serialize(&mut ser).map_err(Error::internal_from)?;
        quoted.push(b'"');
        Ok(Self {
            json: JsonText::assembled(String::from_utf8(json).map_err(Error::internal_from)?),
            quoted: String::from_utf8(quoted).map_err(Error::internal_from)?,
        })
    }

    /// The JSON text.
    pub fn json(&self) -> &JsonText {
        &self.json
    }

    /// The JSON text quoted as one JSON string.
    pub fn quoted(&self) -> &str {
        &self.quoted
    }

    /// This object with the fields of the object `more` added after its own, both ways (an
    /// internal error unless both are objects).
    pub fn merged(&self, more: &ToolText) -> Result<Self> {
        let json = self.json.merged(&more.json)?;
        // quoting leaves an object's braces as they are: the quoted forms merge inside their
        // quotes the way the texts do
        let mut quoted = String::with_capacity(self.quoted.len() + more.quoted.len());
        quoted.push('"');
        merge_objects(
            inside_quotes(&self.quoted),
            inside_quotes(&more.quoted),
            &mut quoted,
        )?;
        quoted.push('"');
        Ok(Self { json, quoted })
    }
}

/// A quoted text without its quotes.
fn inside_quotes(quoted: &str) -> &str {
    &quoted[1..quoted.len() - 1]
}

/// Writes JSON as serde_json's compact writer does, and the same text quoted into `quoted`.
struct Twice<'a> {
    quoted: &'a mut Vec<u8>,
}

/// Formatter methods whose quoted form is their JSON form: numbers, literals, punctuation.
macro_rules! same_both_ways {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $name<W: ?Sized + io::Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> io::Result<()> {
                CompactFormatter.$name(w $(, $arg)*)?;
                CompactFormatter.$name(&mut *self.quoted $(, $arg)*)
            }
        )*
    };
}

impl Formatter for Twice<'_> {
    same_both_ways! {
        write_null();
        write_bool(v: bool);
        write_i8(v: i8);
        write_i16(v: i16);
        write_i32(v: i32);
        write_i64(v: i64);
        write_i128(v: i128);
        write_u8(v: u8);
        write_u16(v: u16);
        write_u32(v: u32);
        write_u64(v: u64);
        write_u128(v: u128);
        write_f32(v: f32);
        write_f64(v: f64);
        write_number_str(v: &str);
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }

    fn begin_string<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\"")?;
        self.quoted.extend_from_slice(b"\\\"");
        Ok(())
    }

    fn end_string<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin_string(w)
    }

    /// A run of a string that needs no escape in JSON, and so none in the quoted form.
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        w.write_all(fragment.as_bytes())?;
        self.quoted.extend_from_slice(fragment.as_bytes());
        Ok(())
    }

    /// An escape (`\"`, `\n`, `\u001f` …), whose backslash (and quote) the quoted form
    /// escapes again.
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let mut written = [0u8; 6];
        let mut cursor = io::Cursor::new(&mut written[..]);
        CompactFormatter.write_char_escape(&mut cursor, escape)?;
        let len = cursor.position() as usize;
        let escape = &written[..len];
        w.write_all(escape)?;
        quote_into(escape, self.quoted);
        Ok(())
    }

    /// Text the serializer takes as it is (a raw value): quoted as any text is.
    fn write_raw_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        w.write_all(fragment.as_bytes())?;
        let whole = serde_json::to_string(fragment).map_err(io::Error::other)?;
        // inside its quotes
        self.quoted.write_all(&whole.as_bytes()[1..whole.len() - 1])
    }
}

/// `bytes` (without control characters) into `out` with each `"` and `\` escaped.
fn quote_into(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Both ways, a value is what serde_json writes: the text, and that text as a string.
    #[test]
    fn both_forms_are_what_serde_json_writes() {
        let long = "x".repeat(300);
        for v in [
            json!({}),
            json!([]),
            json!(null),
            json!("plain"),
            json!({"a": "x\"y", "b": "c:\\d\\", "e": "é – \u{2028} 😀", "f": [1, -2, 2.5, 1e300, true, null]}),
            json!({"ctl": "\u{1}\u{1f}\n\t\r", "\"key\\": {"nested": ["\"", "\\", ""]}}),
            json!({"big": u64::MAX, "small": i64::MIN, "long": long}),
        ] {
            let t = ToolText::of(&v).unwrap();
            let text = serde_json::to_string(&v).unwrap();
            assert_eq!(t.json().as_str(), text);
            assert_eq!(t.quoted(), serde_json::to_string(&text).unwrap(), "{text}");
            assert_eq!(
                serde_json::from_str::<Value>(t.quoted()).unwrap(),
                json!(text)
            );
        }
    }

    #[test]
    fn merged_objects_stay_the_same_both_ways() {
        let a = ToolText::of(&json!({"rows": ["a\"b"]})).unwrap();
        let more = ToolText::of(&json!({"next": "say \"more\""})).unwrap();
        let m = a.merged(&more).unwrap();
        let text = r#"{"rows":["a\"b"],"next":"say \"more\""}"#;
        assert_eq!(m.json().as_str(), text);
        assert_eq!(m.quoted(), serde_json::to_string(text).unwrap());
        assert!(ToolText::of(&json!([1])).unwrap().merged(&more).is_err());
    }
}
