//! Writing the report: to stdout, or to `--output` atomically (a temporary
//! file beside it, renamed into place), so a failed run never leaves half a
//! report behind.

use std::io::Write;
use std::path::Path;

use super::Fatal;

/// Writes `text` to `path`, or to stdout when `path` is `None`.
pub fn write(path: Option<&Path>, text: &str) -> Result<(), Fatal> {
    let Some(path) = path else {
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|error| Fatal(format!("cannot write the report: {error}")));
    };
    let name = path.file_name().ok_or_else(|| {
        Fatal(format!(
            "--output {} names no file; give a file path",
            path.display()
        ))
    })?;
    let temporary = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|error| {
        let _ = std::fs::remove_file(&temporary);
        Fatal(format!(
            "cannot write the report to {}: {error}; check that its folder exists and is writable",
            path.display()
        ))
    })
}
