//! The CLI's output to stdout: a closed pipe (`usicheck rules | head`, `usicheck engine
//! --list-faults | head -1`) ends it quietly instead of panicking as `println!` does.
//! [`write_styled`] and `outln!` keep or strip the styles of `usicheck::report::style` as
//! `--color` says; [`write_stdout`] writes bytes as they are (a script, a man page, JSON).

use std::io::Write;

/// `println!` through [`write_styled`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write_styled(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes to stdout; a closed pipe is not an error.
pub(crate) fn write_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes to stdout with its ANSI styles, stripped unless colour is on (a terminal, or
/// `--color always`); a closed pipe is not an error.
pub(crate) fn write_styled(text: &str) {
    let mut stdout = anstream::AutoStream::auto(std::io::stdout().lock());
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}
