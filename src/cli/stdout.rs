//! The CLI's output to stdout: a closed pipe (`usicheck rules | head`, `usicheck engine
//! --list-faults | head -1`) ends it quietly instead of panicking as `println!` does.

use std::io::Write;

/// `println!` through [`write_stdout`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes to stdout; a closed pipe is not an error.
pub(crate) fn write_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}
