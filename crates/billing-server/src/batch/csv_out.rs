//! A minimal, fast CSV row writer: fields are quoted only when they must be (RFC 4180), rows end
//! with `\n`, and pre-rendered runs of fields can be appended as they are.

use std::io::{self, BufWriter, Write};

pub struct RowWriter<W: Write> {
    out: BufWriter<W>,
    line: Vec<u8>,
    empty: bool,
}

fn needs_quotes(field: &[u8]) -> bool {
    field
        .iter()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
}

/// Appends `field` to `line` as one CSV field (without a separator).
pub fn push_field(line: &mut Vec<u8>, field: &[u8]) {
    if needs_quotes(field) {
        line.push(b'"');
        for &byte in field {
            if byte == b'"' {
                line.push(b'"');
            }
            line.push(byte);
        }
        line.push(b'"');
    } else {
        line.extend_from_slice(field);
    }
}

impl<W: Write> RowWriter<W> {
    pub fn new(output: W) -> Self {
        Self {
            out: BufWriter::with_capacity(1 << 20, output),
            line: Vec::with_capacity(512),
            empty: true,
        }
    }

    pub fn field(&mut self, field: &[u8]) {
        if !self.empty {
            self.line.push(b',');
        }
        self.empty = false;
        push_field(&mut self.line, field);
    }

    /// Appends fields rendered beforehand, each already preceded by its `,`.
    pub fn rendered(&mut self, fields: &[u8]) {
        self.line.extend_from_slice(fields);
        self.empty = false;
    }

    pub fn end_row(&mut self) -> io::Result<()> {
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        self.line.clear();
        self.empty = true;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        let mut buffer = Vec::new();
        {
            let mut writer = RowWriter::new(&mut buffer);
            for field in [
                &b"plain"[..],
                b"with,comma",
                b"say \"hi\"",
                b"two\nlines",
                b"",
            ] {
                writer.field(field);
            }
            writer.rendered(b",x,y");
            writer.end_row().expect("row");
            writer.flush().expect("flush");
        }
        insta::assert_snapshot!(String::from_utf8(buffer).expect("utf-8"), @r#"
        plain,"with,comma","say ""hi""","two
        lines",,x,y
        "#);
    }
}
