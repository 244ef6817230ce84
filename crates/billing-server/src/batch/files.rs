//! The files batch jobs read and write. Every error names its file: "No space left on device"
//! or "File exists" alone does not say which of a run's files or directories it was about, and
//! the operating system's errors carry no path, so each is given one here, where files are
//! opened. And no line is held past [`MAX_LINE_BYTES`]: a file of the wrong kind (with no line
//! breaks) is refused at its first megabyte, not read whole into one record.

use std::io::{Read, Write};
use std::path::Path;

use super::BatchError;

/// A reader or writer whose errors start with its name (a path, or "standard output").
pub struct Named<T> {
    name: String,
    inner: T,
}

impl<T> Named<T> {
    pub fn new(name: impl Into<String>, inner: T) -> Self {
        Named {
            name: name.into(),
            inner,
        }
    }

    fn named(&self, error: std::io::Error) -> std::io::Error {
        named(&self.name, error)
    }
}

fn named(name: &str, error: std::io::Error) -> std::io::Error {
    std::io::Error::new(error.kind(), format!("{name}: {error}"))
}

impl Named<std::fs::File> {
    /// Creates (or empties) the file at `path`.
    pub fn create(path: &Path) -> Result<Self, BatchError> {
        std::fs::File::create(path)
            .map(|file| Named::new(path.display().to_string(), file))
            .map_err(|e| BatchError(format!("{}: {e}", path.display())))
    }

    /// Opens the file at `path` to read.
    pub fn open(path: &Path) -> Result<Self, BatchError> {
        std::fs::File::open(path)
            .map(|file| Named::new(path.display().to_string(), file))
            .map_err(|e| BatchError(format!("{}: {e}", path.display())))
    }

    pub fn metadata(&self) -> std::io::Result<std::fs::Metadata> {
        self.inner.metadata().map_err(|e| self.named(e))
    }
}

impl<T: Write> Write for Named<T> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.inner.write(bytes).map_err(|e| self.named(e))
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(bytes).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().map_err(|e| self.named(e))
    }
}

impl<T: Read> Read for Named<T> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buffer).map_err(|e| self.named(e))
    }
}

/// The longest line a batch job reads from a file: a record of the feed or a tariff is a few
/// hundred bytes at most.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// A reader that fails once a line runs past `MAX_LINE_BYTES` without a line break.
pub struct LineBounded<R> {
    inner: R,
    since_line_break: usize,
}

impl<R: Read> LineBounded<R> {
    pub fn new(inner: R) -> Self {
        LineBounded {
            inner,
            since_line_break: 0,
        }
    }
}

impl<R: Read> Read for LineBounded<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.since_line_break > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line longer than {MAX_LINE_BYTES} bytes (is this the right file?)"),
            ));
        }
        let read = self.inner.read(buffer)?;
        let chunk = &buffer[..read];
        self.since_line_break = match chunk.iter().rposition(|&b| b == b'\n') {
            Some(last) => chunk.len() - last - 1,
            None => self.since_line_break + chunk.len(),
        };
        Ok(read)
    }
}

/// The file at `path` to read as lines, its errors naming it.
pub fn open_lines(path: &Path) -> Result<LineBounded<Named<std::fs::File>>, BatchError> {
    Named::open(path).map(LineBounded::new)
}

/// A CSV writer on a new file at `directory/file`, its header written.
pub fn csv_file(
    directory: &Path,
    file: &str,
    columns: &[&str],
) -> Result<csv::Writer<Named<std::fs::File>>, BatchError> {
    let mut writer = csv::Writer::from_writer(Named::create(&directory.join(file))?);
    writer.write_record(columns)?;
    Ok(writer)
}

/// `std::fs::create_dir_all`, its error naming the directory (a file of that name gave only
/// "File exists").
pub fn create_directory(directory: &Path) -> Result<(), BatchError> {
    std::fs::create_dir_all(directory)
        .map_err(|e| BatchError(format!("{}: {e}", directory.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails names the file it was to (here /dev/full, a disk always full).
    #[test]
    fn a_failed_write_names_the_file() {
        let path = Path::new("/dev/full");
        let mut file = Named::new(
            path.display().to_string(),
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .expect("/dev/full"),
        );
        let refused = file.write_all(b"usage").unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::StorageFull);
        insta::assert_snapshot!(refused, @"/dev/full: No space left on device (os error 28)");
    }

    /// A file without line breaks is refused at its first long line, not read whole.
    #[test]
    fn a_line_past_the_bound_is_refused() {
        let text = vec![b'x'; 3 * MAX_LINE_BYTES];
        let mut reader = LineBounded::new(text.as_slice());
        let mut buffer = [0u8; 8192];
        let mut read = 0;
        let refused = loop {
            match reader.read(&mut buffer) {
                Ok(count) => read += count,
                Err(refused) => break refused,
            }
        };
        assert_eq!(
            read,
            MAX_LINE_BYTES + 8192,
            "refused at the first read past the bound"
        );
        insta::assert_snapshot!(refused, @"a line longer than 1048576 bytes (is this the right file?)");
        let lines = "a,b\n".repeat(MAX_LINE_BYTES);
        let mut held = Vec::new();
        LineBounded::new(lines.as_bytes())
            .read_to_end(&mut held)
            .expect("short lines, however many");
        assert_eq!(held.len(), lines.len());
    }

    /// A directory where a file of the name exists is refused naming it.
    #[test]
    fn a_directory_that_is_a_file_is_named() {
        let path = std::env::temp_dir().join(format!("billing_named_{}", std::process::id()));
        std::fs::write(&path, "").expect("file");
        let refused = create_directory(&path).unwrap_err().to_string();
        let _ = std::fs::remove_file(&path);
        assert_eq!(
            refused,
            format!("{}: File exists (os error 17)", path.display())
        );
    }
}
